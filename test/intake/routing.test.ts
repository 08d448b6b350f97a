import { describe, expect, it } from 'vitest';
import { route } from '../../src/intake/routing.js';
import type { RoutingRule } from '../../src/intake/schemas.js';

// Routing rules: ordered, first match decides, defaults when none matches.

const PROJECT = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const action = {
  category: 'action_required',
  needs_action: true,
  priority: 'high' as const,
  sender: 'Dana@Contoso.com',
  subject: 'Approve the Q3 budget',
};
const newsletter = {
  category: 'newsletter',
  needs_action: false,
  priority: 'low' as const,
  sender: 'news@mail.vendor.io',
  subject: 'Weekly digest',
};

describe('routing', () => {
  it('defaults: needs action → email_task with the priority mapped and the mailbox project; otherwise record', () => {
    expect(route([], action, PROJECT)).toEqual({
      kind: 'create',
      rule_index: null,
      item: { type: 'email_task', project_id: PROJECT, priority: 1, agent: null },
    });
    expect(route([], { ...action, priority: 'medium' }, null)).toMatchObject({
      item: { priority: 3, project_id: null },
    });
    expect(route([], { ...action, priority: 'low' }, null)).toMatchObject({ item: { priority: 5 } });
    expect(route([], newsletter, PROJECT)).toEqual({ kind: 'record', rule_index: null });
  });

  it('the first matching rule decides, with its item settings over the defaults', () => {
    const rules: RoutingRule[] = [
      {
        match: { sender: ['vendor.io'] },
        action: 'create_item',
        item: { type: 'vendor_mail', priority: 4, agent: 'ada', project_id: OTHER },
      },
      {
        match: { category: ['action_required'], subject_contains: 'budget' },
        action: 'create_item',
        item: { type: 'finance', project_id: null },
      },
      { match: { needs_action: true }, action: 'record' },
    ];
    // A subdomain of a listed domain matches; the rule makes an item of a newsletter.
    expect(route(rules, newsletter, PROJECT)).toEqual({
      kind: 'create',
      rule_index: 0,
      item: { type: 'vendor_mail', project_id: OTHER, priority: 4, agent: 'ada' },
    });
    // Case-insensitive subject; project_id null clears the mailbox's project; priority stays the classification's.
    expect(route(rules, { ...action, subject: 'About the BUDGET' }, PROJECT)).toEqual({
      kind: 'create',
      rule_index: 1,
      item: { type: 'finance', project_id: null, priority: 1, agent: null },
    });
    expect(route(rules, { ...action, subject: 'Something else' }, PROJECT)).toEqual({ kind: 'record', rule_index: 2 });
  });

  it('matches addresses exactly and domains by suffix, never by look-alike', () => {
    const only = (sender: string[]): RoutingRule[] => [{ match: { sender }, action: 'record' }];
    expect(route(only(['dana@contoso.com']), action, null).kind).toBe('record');
    expect(route(only(['@contoso.com']), action, null).kind).toBe('record');
    expect(route(only(['contoso.com']), { ...action, sender: 'x@eu.contoso.com' }, null).kind).toBe('record');
    expect(route(only(['contoso.com']), { ...action, sender: 'x@notcontoso.com' }, null).kind).toBe('create');
    expect(route(only(['ana@contoso.com']), action, null).kind).toBe('create');
    expect(route(only(['contoso.com']), { ...action, sender: null }, null).kind).toBe('create');
  });

  it('every condition of a rule must hold; a rule without conditions matches everything', () => {
    const rules: RoutingRule[] = [{ match: { category: ['newsletter'], sender: ['contoso.com'] }, action: 'record' }];
    expect(route(rules, action, null).kind).toBe('create');
    expect(route([{ match: {}, action: 'record' }], action, null)).toEqual({ kind: 'record', rule_index: 0 });
  });
});
