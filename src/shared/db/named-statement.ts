import { createHash } from 'node:crypto';

/**
 * A pg query config whose name is derived from its text: each connection parses and plans it
 * once, and the same text always gets the same name, so two statements can never share one.
 */
export function named(text: string): { name: string; text: string } {
  return { name: `agentdesk_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text };
}
