// Whose answers a request may be given: everything dedupe remembers is kept per scope, so a caller who points
// `base_url` at a model of its own cannot plant answers ("wire $48,000 today", confidence 0.99) that
// everyone else's copies of the email would receive (docs/design-decisions.md, "Classification").

import { createHash } from 'node:crypto';
import type { ProviderSettings } from '../providers.js';

export interface ClassifyContext {
  /** Who asks: the owner of the request's token. null while the service has no tokens. */
  caller: string | null;
  /**
   * An in-process caller whose requests are made of outside data (mail intake): provider
   * settings in the request are refused whatever CLASSIFY_ALLOW_OVERRIDES says.
   */
  refuseOverrides?: boolean;
}

export const ANONYMOUS: Readonly<ClassifyContext> = Object.freeze({ caller: null });

/**
 * A short, fixed-length name for the scope, prefixed to every dedupe key: the provider, model and base URL
 * the request resolved to, and the caller. Not the key or the temperature: they choose who pays and how
 * much the answer varies, not which model gives it.
 */
export function dedupeScope(
  settings: Pick<ProviderSettings, 'provider' | 'model' | 'base_url'>,
  context: ClassifyContext,
): string {
  const material = JSON.stringify([settings.provider, settings.model, settings.base_url, context.caller]);
  return createHash('sha256').update(material).digest('hex').slice(0, 32);
}
