// What a classified message becomes, by the mailbox's routing rules. Pure: no I/O, so the whole
// table of cases is tested directly.

import type { Priority } from '../classify/contract.js';
import { EMAIL_TASK_TYPE, type RoutingRule } from './schemas.js';

/** The classification's priority on the work item scale (1 is the highest). */
export const WORK_PRIORITY = { high: 1, medium: 3, low: 5 } as const satisfies Record<Priority, number>;

export interface RoutingInput {
  category: string;
  needs_action: boolean;
  priority: Priority;
  sender: string | null;
  subject: string | null;
}

export interface ItemPlan {
  type: string;
  project_id: string | null;
  priority: number;
  agent: string | null;
}

export type Decision =
  { kind: 'create'; rule_index: number | null; item: ItemPlan } | { kind: 'record'; rule_index: number | null };

function senderMatches(patterns: readonly string[], sender: string | null): boolean {
  if (sender === null) return false;
  const address = sender.trim().toLowerCase();
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return patterns.some((raw) => {
    const pattern = raw.trim().toLowerCase();
    if (pattern.includes('@') && !pattern.startsWith('@')) return address === pattern;
    const wanted = pattern.replace(/^@/, '');
    return domain === wanted || domain.endsWith(`.${wanted}`);
  });
}

export function ruleMatches(rule: RoutingRule, input: RoutingInput): boolean {
  const { match } = rule;
  if (match.category !== undefined && !(match.category as readonly string[]).includes(input.category)) return false;
  if (match.needs_action !== undefined && match.needs_action !== input.needs_action) return false;
  if (match.sender !== undefined && !senderMatches(match.sender, input.sender)) return false;
  if (
    match.subject_contains !== undefined &&
    !(input.subject ?? '').toLowerCase().includes(match.subject_contains.toLowerCase())
  ) {
    return false;
  }
  return true;
}

/**
 * The first rule that matches decides; when none does, a message that needs action becomes an
 * `email_task` work item with the classification's priority and the mailbox's project, and any
 * other is only recorded.
 */
export function route(rules: readonly RoutingRule[], input: RoutingInput, mailboxProject: string | null): Decision {
  const defaults: ItemPlan = {
    type: EMAIL_TASK_TYPE,
    project_id: mailboxProject,
    priority: WORK_PRIORITY[input.priority],
    agent: null,
  };
  const index = rules.findIndex((rule) => ruleMatches(rule, input));
  if (index === -1)
    return input.needs_action
      ? { kind: 'create', rule_index: null, item: defaults }
      : { kind: 'record', rule_index: null };
  const rule = rules[index]!;
  if (rule.action === 'record') return { kind: 'record', rule_index: index };
  const item = rule.item ?? {};
  return {
    kind: 'create',
    rule_index: index,
    item: {
      type: item.type ?? defaults.type,
      project_id: item.project_id !== undefined ? item.project_id : defaults.project_id,
      priority: item.priority ?? defaults.priority,
      agent: item.agent ?? null,
    },
  };
}
