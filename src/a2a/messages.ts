import type { Message, Part } from '@a2a-js/sdk';
import type { CreateWorkItem } from '../work/contract.js';

// What an A2A message asks of the desk: a new item (its type from the skill the metadata names,
// its description from the text parts, its data parts as the payload), or the words of an answer
// or a comment on an existing one.

/** The item's description limit (DescriptionSchema): the whole text stays in the payload. */
export const DESCRIPTION_LIMIT = 10_000;
/** The fields of a message's `metadata.agentdesk` passed to POST /work as they are. */
const ITEM_FIELDS = ['priority', 'project_id', 'agent', 'watchers', 'review_required'] as const;

export function textOf(parts: readonly Part[]): string {
  return parts
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('\n')
    .trim();
}

/** The data parts as one object: objects merged in order, any other value kept in a `data` list. */
export function dataOf(parts: readonly Part[]): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  const others: unknown[] = [];
  for (const part of parts) {
    if (part.content?.$case !== 'data') continue;
    const value: unknown = part.content.value;
    if (value && typeof value === 'object' && !Array.isArray(value)) Object.assign(merged, value);
    else others.push(value);
  }
  if (others.length > 0) merged.data = others;
  return merged;
}

/** The skill a message names: `metadata.skill` or `metadata.skillId`, on the message or the request. */
export function skillOf(message: Message, requestMetadata: Record<string, unknown> | undefined): string | undefined {
  for (const metadata of [message.metadata, requestMetadata]) {
    const skill: unknown = metadata?.skill ?? metadata?.skillId;
    if (typeof skill === 'string' && skill !== '') return skill;
  }
  return undefined;
}

function itemFields(message: Message): Partial<CreateWorkItem> {
  const fields: unknown = message.metadata?.agentdesk;
  if (!fields || typeof fields !== 'object') return {};
  const picked: Record<string, unknown> = {};
  for (const name of ITEM_FIELDS) {
    const value = (fields as Record<string, unknown>)[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked as Partial<CreateWorkItem>;
}

/** The item a new task's first message makes. */
export function newItem(message: Message, type: string, contextId: string): CreateWorkItem {
  const text = textOf(message.parts);
  const cut = text.length > DESCRIPTION_LIMIT;
  const a2a = { context_id: contextId, message_id: message.messageId, ...(cut && { text }) };
  return {
    ...itemFields(message),
    type,
    description: cut ? `${text.slice(0, DESCRIPTION_LIMIT - 1)}…` : text,
    payload: { ...dataOf(message.parts), a2a },
  };
}
