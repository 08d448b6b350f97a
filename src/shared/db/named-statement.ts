import { createHash } from 'node:crypto';

/** A pg query config named after its text: each connection plans it once, and two statements never share a name. */
export function named(text: string): { name: string; text: string } {
  return { name: `agentdesk_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text };
}
