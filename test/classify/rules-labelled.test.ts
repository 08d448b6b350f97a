import { describe, expect, it } from 'vitest';
import { evaluate, loadLabelledSet } from '../support/rules-labelled.js';
import { CATEGORIES } from '../../src/classify/categories.js';
import { normalizeEmail } from '../../src/email/normalize.js';
import { classifyWithRules } from '../../src/classify/rules/classify.js';

// The offline classifier against the labelled set in four languages (test/fixtures/rules-
// labelled, README there). Floors sit below what was measured when they were set, so a small
// honest change passes and a regression does not: measured overall 0.945, every language at
// least 0.94, every category at least 0.875, held-out part 0.78 on the first 128 emails; 0.96 on
// all 173 once the 45 task-labelled ones were added (rules-tasks.test.ts checks their
// priority, deadline and task too). `npm run bench:rules` prints the current figures.

const set = loadLabelledSet();
const result = evaluate(set, (email) => classifyWithRules(normalizeEmail(email.input, 6_000)).category);

describe('the rules classifier on the labelled set', () => {
  it('is the set the issue asks for: four languages, 60 emails or more, ten or more per category', () => {
    expect(set.length).toBeGreaterThanOrEqual(60);
    expect(Object.keys(result.by_language).sort()).toEqual(['de', 'en', 'es', 'fr']);
    for (const category of CATEGORIES) expect(result.by_category[category].emails).toBeGreaterThanOrEqual(10);
    expect(result.by_split.holdout.emails).toBeGreaterThanOrEqual(20);
  });

  it('classifies at least 85% of it correctly', () => {
    expect(result.overall.accuracy, JSON.stringify(result.misses)).toBeGreaterThanOrEqual(0.85);
  });

  it.each(['en', 'de', 'es', 'fr'])('classifies at least 80% of the %s emails correctly', (language) => {
    expect(result.by_language[language]!.accuracy, JSON.stringify(result.misses)).toBeGreaterThanOrEqual(0.8);
  });

  it.each([...CATEGORIES])('classifies at least 75% of the %s emails correctly', (category) => {
    expect(result.by_category[category].accuracy, JSON.stringify(result.misses)).toBeGreaterThanOrEqual(0.75);
  });

  it('classifies at least 65% of the held-out part correctly (emails the rules were not tuned on)', () => {
    expect(result.by_split.holdout.accuracy, JSON.stringify(result.misses)).toBeGreaterThanOrEqual(0.65);
  });
});
