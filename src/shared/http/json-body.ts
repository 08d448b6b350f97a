import { ValidationError } from '../errors.js';

// Every JSON body of both services is parsed here, and checked once for what no store or client can take,
// before any schema, service or serializer sees it.

/** Recursive code (JSON.stringify, schema validators, the clients that list the item) breaks deeper. */
export const MAX_JSON_DEPTH = 64;

/** PostgreSQL text cannot hold it (a 500 there, stored on SQLite): refused everywhere, so both stores agree. */
const NUL = '\u0000';
// A high surrogate not followed by a low one, or a low one not preceded by a high one. UTF-8 cannot encode
// it and the driver writes U+FFFD instead, so what was acknowledged would not be what was stored.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** JSON.parse makes it a harmless own property, but a later Object.assign or merge would set a prototype. */
const FORBIDDEN_KEY = '__proto__';

/** What in `text` cannot be stored faithfully ("U+0000 (NUL)"), or null when nothing. */
export function unstorableText(text: string): string | null {
  if (text.includes(NUL)) return 'U+0000 (NUL)';
  const lone = LONE_SURROGATE.exec(text);
  if (lone)
    return `a lone surrogate (U+${lone[0].charCodeAt(0).toString(16).toUpperCase()}), which is not valid Unicode`;
  return null;
}

function fieldName(path: readonly string[]): string {
  return path.join('.');
}

interface Pending {
  value: object;
  path: string[];
  depth: number;
}

/**
 * Throws a ValidationError naming the first field that breaks a rule above. `root` is the
 * name used when the body itself is at fault (a key of the top-level object, say). The walk is
 * iterative, so the check itself cannot overflow the stack (JSON.parse is iterative in V8 too).
 */
export function checkJsonValue(value: unknown, root = 'body'): void {
  if (typeof value === 'string') {
    const problem = unstorableText(value);
    if (problem) throw ValidationError.of(root, `must not contain ${problem}`);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const stack: Pending[] = [{ value, path: [], depth: 1 }];
  while (stack.length > 0) {
    const { value: container, path, depth } = stack.pop()!;
    const here = () => fieldName(path) || root;
    if (depth > MAX_JSON_DEPTH) throw ValidationError.of(here(), `nests deeper than ${MAX_JSON_DEPTH} levels`);
    const entries: Array<[string, unknown]> = Array.isArray(container)
      ? container.map((item, index) => [String(index), item])
      : Object.entries(container);
    for (const [key, item] of entries) {
      if (!Array.isArray(container)) {
        if (key === FORBIDDEN_KEY) {
          throw ValidationError.of(fieldName([...path, key]), 'is not allowed as a key');
        }
        const keyProblem = unstorableText(key);
        if (keyProblem) throw ValidationError.of(here(), `has a key containing ${keyProblem}`);
      }
      if (typeof item === 'string') {
        const problem = unstorableText(item);
        if (problem) throw ValidationError.of(fieldName([...path, key]), `must not contain ${problem}`);
      } else if (item !== null && typeof item === 'object') {
        stack.push({ value: item, path: [...path, key], depth: depth + 1 });
      }
    }
  }
}

/** Thrown for text that is not JSON at all (a 400, unlike a ValidationError's 422). */
export class MalformedJsonError extends SyntaxError {
  constructor(readonly empty: boolean) {
    super(empty ? 'The body is empty' : 'The body is not valid JSON');
  }
}

/** JSON.parse, then the checks above. Never echoes the text: it may hold a secret. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new MalformedJsonError(true);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MalformedJsonError(false);
  }
  checkJsonValue(value);
  return value;
}
