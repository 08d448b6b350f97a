// The language model's answers are input too: a case may have the fake LLM answer with the
// expected JSON, with that JSON mutated (a field of the wrong type, out of range, missing, or
// extra), with something else entirely, or with a failure (an error status, a body that is not
// JSON, an answer that is not the asked format). Whatever it says, /classify answers 200 with a
// result that matches its schema, and the dedupe store keeps only results.

import fc from 'fast-check';
import { FAKE_ANSWER, type FakeReply } from '../support/fake-llm.js';
import { hostileValue } from './hostile-values.js';
import { jsonPaths, setAt } from './mutations.js';

export interface ModelBehaviour {
  /** What the fake answers when no failure is scripted. */
  answer: unknown;
  /** Failures for the next calls, in order. */
  replies: FakeReply[];
}

const answerPaths = jsonPaths(FAKE_ANSWER);

const mutatedAnswer = fc
  .tuple(
    fc.nat(),
    fc.oneof(hostileValue, fc.constant(undefined), fc.constantFrom('spam', 'urgent', 'action_required', 1.5, -1, 101)),
  )
  .map(([pick, value]) => setAt(FAKE_ANSWER, answerPaths[pick % answerPaths.length]!, value));

const failure: fc.Arbitrary<FakeReply> = fc.oneof(
  fc.constantFrom(500, 502, 400, 401, 403, 404).map((status): FakeReply => ({ kind: 'status', status })),
  fc.constant<FakeReply>({ kind: 'status', status: 429, headers: { 'retry-after': '0' } }),
  fc.constant<FakeReply>({ kind: 'malformed_body' }),
  fc.constant<FakeReply>({ kind: 'malformed_answer' }),
  fc.integer({ min: 1, max: 50 }).map((ms): FakeReply => ({ kind: 'delay', ms, then: { kind: 'answer' } })),
);

export const modelBehaviour: fc.Arbitrary<ModelBehaviour> = fc.record({
  answer: fc.oneof(
    { weight: 5, arbitrary: fc.constant<unknown>(FAKE_ANSWER) },
    { weight: 4, arbitrary: mutatedAnswer },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  ),
  replies: fc.oneof(
    { weight: 3, arbitrary: fc.constant<FakeReply[]>([]) },
    { weight: 1, arbitrary: fc.array(failure, { minLength: 1, maxLength: 2 }) },
  ),
});
