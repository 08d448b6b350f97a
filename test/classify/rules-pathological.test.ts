import { describe, expect, it } from 'vitest';
import { checkAnswer } from '../../src/classify/llm/answer.js';
import { normalizeEmail } from '../../src/email/normalize.js';
import { classifyWithRules } from '../../src/classify/rules/classify.js';
import { PATHOLOGICAL_BODIES } from '../support/rules-pathological.js';

// Bodies built to make a careless rule backtrack or loop. Their speed is measured by
// `npm run bench:rules` (no wall-clock budget in the default suite); here each must still get a
// valid answer, and a rule that turned catastrophic would show as this file hanging.

describe('the rules classifier on pathological bodies', () => {
  it.each(PATHOLOGICAL_BODIES)('answers validly for %s at the full budget', (_name, body) => {
    const answer = classifyWithRules(
      normalizeEmail({ email_data: { subject: body.slice(0, 200), body } }, 6_000),
      new Date('2026-11-26T00:00:00Z'),
    );
    expect(checkAnswer(answer).ok).toBe(true);
    if (answer.task_description !== null) expect(answer.task_description.length).toBeLessThanOrEqual(120);
  });
});
