// Types for scripts/config-doc.mjs, which test/shared/config-doc.test.ts imports.
import type { ConfigVariable } from '../src/shared/config/config.js';

export declare const START_MARKER: string;
export declare const END_MARKER: string;
export declare const DOC_PATH: string;
export declare function renderConfigTable(
  variables: readonly ConfigVariable[],
  groups: Readonly<Record<string, string>>,
): string;
export declare function tableInDoc(doc: string): string | null;
export declare function replaceTable(doc: string, table: string): string;
