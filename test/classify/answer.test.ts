import { describe, expect, it } from 'vitest';
import { CATEGORIES } from '../../src/classify/categories.js';
import { ANSWER_JSON_SCHEMA, checkAnswer, enforceInvariants, type ModelAnswer } from '../../src/classify/llm/answer.js';
import { FAKE_ANSWER } from '../support/fake-llm.js';

const valid = (): Record<string, unknown> => structuredClone(FAKE_ANSWER) as unknown as Record<string, unknown>;

/** Walks a JSON schema and returns every object schema in it. */
function objectSchemas(schema: unknown): Array<Record<string, unknown>> {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const nested = Object.values(node).flatMap((value) =>
    Array.isArray(value) ? value.flatMap(objectSchemas) : objectSchemas(value),
  );
  return node.type === 'object' ? [node, ...nested] : nested;
}

describe('answer schema', () => {
  it('is strict-mode compatible: every property required, no additional properties, no bare optionals', () => {
    const objects = objectSchemas(ANSWER_JSON_SCHEMA);
    expect(objects).toHaveLength(2);
    for (const object of objects) {
      expect(object.additionalProperties).toBe(false);
      expect([...(object.required as string[])].sort()).toEqual(Object.keys(object.properties as object).sort());
    }
    expect(ANSWER_JSON_SCHEMA.properties.category.enum).toEqual([...CATEGORIES]);
    expect(ANSWER_JSON_SCHEMA.properties.task_description.type).toEqual(['string', 'null']);
    expect(JSON.stringify(ANSWER_JSON_SCHEMA)).not.toContain('uncategorized');
  });
});

describe('checkAnswer', () => {
  it('accepts a valid answer and trims its text', () => {
    const answer = { ...valid(), reasoning: '  One sentence.  ' };
    const checked = checkAnswer(answer);
    expect(checked.ok).toBe(true);
    if (checked.ok) expect(checked.answer.reasoning).toBe('One sentence.');
  });

  it.each([
    ['a category outside the list', { category: 'urgent' }, /category/],
    ['the fallback category', { category: 'uncategorized' }, /category/],
    ['confidence above 1', { confidence: 1.5 }, /confidence/],
    ['confidence below 0', { confidence: -0.1 }, /confidence/],
    ['confidence as a string', { confidence: '0.9' }, /confidence/],
    ['needs_action as a string', { needs_action: 'yes' }, /needs_action/],
    ['an unknown priority', { priority: 'critical' }, /priority/],
    ['task_description as a number', { task_description: 3 }, /task_description/],
    ['details missing', { details: undefined }, /details/],
    ['a detail list of numbers', { details: { ...FAKE_ANSWER.details, people: [1, 2] } }, /details\.people/],
    [
      'a detail string as an object',
      { details: { ...FAKE_ANSWER.details, deadline: { when: 'Friday' } } },
      /details\.deadline/,
    ],
  ])('rejects %s', (_name, patch, problem) => {
    const checked = checkAnswer({ ...valid(), ...patch });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problems.join('; ')).toMatch(problem);
  });

  it('rejects non-objects', () => {
    expect(checkAnswer('{"category":"fyi"}').ok).toBe(false);
    expect(checkAnswer(null).ok).toBe(false);
    expect(checkAnswer([]).ok).toBe(false);
  });

  it('fills missing detail fields with null and empty lists', () => {
    const checked = checkAnswer({ ...valid(), details: { summary: 'S' } });
    expect(checked.ok && checked.answer.details).toEqual({
      summary: 'S',
      suggested_title: null,
      suggested_notes: null,
      deadline: null,
      people: [],
      organizations: [],
      attachments_referenced: [],
      next_steps: [],
      key_points: [],
      source_signals: [],
    });
  });
});

describe('enforceInvariants', () => {
  const answer = (patch: Partial<ModelAnswer>): ModelAnswer => {
    const checked = checkAnswer(valid());
    if (!checked.ok) throw new Error('fixture answer is invalid');
    return { ...checked.answer, ...patch };
  };

  it('action_required always needs action', () => {
    const result = enforceInvariants(
      answer({ category: 'action_required', needs_action: false, task_description: null }),
      null,
    );
    expect(result.needs_action).toBe(true);
    expect(result.task_description).toBe('Approve Q3 budget');
  });

  it.each(['newsletter', 'marketing', 'spam'] as const)('%s never needs action and has no task', (category) => {
    const result = enforceInvariants(answer({ category, needs_action: true }), null);
    expect(result.needs_action).toBe(false);
    expect(result.task_description).toBeNull();
  });

  it('no action means no task description', () => {
    const result = enforceInvariants(
      answer({ category: 'fyi', needs_action: false, task_description: 'Do something' }),
      null,
    );
    expect(result.task_description).toBeNull();
  });

  it('keeps a consistent answer and adds the dedupe key', () => {
    const result = enforceInvariants(answer({ category: 'meeting', needs_action: true }), 'abc');
    expect(result).toMatchObject({
      category: 'meeting',
      needs_action: true,
      task_description: FAKE_ANSWER.task_description,
    });
    expect(result.details.dedupe_key).toBe('abc');
  });
});
