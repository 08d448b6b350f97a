// Text that comes from mail is cleaned once, where it enters intake (mime.ts, the Graph client,
// the IMAP watcher), so everything past that point stores alike on both databases. Mail is not a
// caller that can be told to fix its input, so this cleans rather than refuses.

// PostgreSQL text and jsonb cannot hold U+0000 (one such subject used to stop its mailbox for
// good); SQLite can, but then the stores would disagree, and the API, which refuses U+0000 in
// every body, would hand out text it refuses to take back.
// eslint-disable-next-line no-control-regex -- NUL is exactly what this removes
const NUL = /\u0000/g;
// A high surrogate not followed by a low one, or a low one not preceded by a high one. UTF-8
// cannot encode it: the drivers would write U+FFFD anyway for text, and jsonb refuses its escape.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** U+0000 removed, a lone surrogate made U+FFFD. */
export function cleanText(text: string): string {
  return text.replace(NUL, '').replace(LONE_SURROGATE, '\ufffd');
}

/** cleanText on a string that may be absent. */
export function cleanOptional<T extends string | null | undefined>(text: T): T {
  return (typeof text === 'string' ? cleanText(text) : text) as T;
}

/**
 * Every string of a JSON-like value cleaned, keys included; a new value, the input untouched.
 * Iterative, so a message nested deeply cannot overflow the stack.
 */
export function cleanDeep<T>(value: T): T {
  if (typeof value === 'string') return cleanText(value) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy = (container: object): object => (Array.isArray(container) ? [...container] : { ...container });
  const root = copy(value);
  const stack: object[] = [root];
  while (stack.length > 0) {
    const container = stack.pop() as Record<string, unknown>;
    for (const key of Object.keys(container)) {
      const item = container[key];
      const cleaned =
        typeof item === 'string' ? cleanText(item) : item !== null && typeof item === 'object' ? copy(item) : item;
      if (typeof cleaned === 'object' && cleaned !== null) stack.push(cleaned);
      const cleanKey = Array.isArray(container) ? key : cleanText(key);
      if (cleanKey !== key) delete container[key];
      // Defined, not assigned: a "__proto__" key from JSON stays an ordinary property.
      Object.defineProperty(container, cleanKey, {
        value: cleaned,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return root as T;
}

const isHigh = (code: number | undefined) => code !== undefined && code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number | undefined) => code !== undefined && code >= 0xdc00 && code <= 0xdfff;

/** The first `max` UTF-16 units at most, without cutting a character in two (a lone surrogate). */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, isHigh(text.charCodeAt(max - 1)) ? max - 1 : max);
}

/** The last `max` UTF-16 units at most, without cutting a character in two. */
export function cutTextEnd(text: string, max: number): string {
  if (text.length <= max) return text;
  const start = text.length - max;
  return text.slice(isLow(text.charCodeAt(start)) ? start + 1 : start);
}
