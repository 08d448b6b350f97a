import type { ApiProblem } from '../lib/api.ts';
import { ProblemMessage } from './problem-message.tsx';

/** What became of the last change the user sent from one part of the item page. */
export type Feedback =
  | { kind: 'done'; message: string }
  | { kind: 'problem'; problem: ApiProblem }
  | { kind: 'stale'; changes: string[]; version: number };

export function ChangeFeedback({ feedback }: { feedback: Feedback | null }) {
  if (feedback === null) return null;
  switch (feedback.kind) {
    case 'done':
      return (
        <p class="ok" role="status">
          {feedback.message}
        </p>
      );
    case 'problem':
      return <ProblemMessage problem={feedback.problem} />;
    case 'stale':
      return (
        <div class="problem stale" role="alert">
          <strong>This item changed since you loaded it</strong>
          <span class="problem-detail">
            Your change was not made. The page now shows the item as it is (version {feedback.version}); check it, then
            try again.
          </span>
          <ul aria-label="What changed">
            {feedback.changes.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      );
    default: {
      const unreachable: never = feedback;
      return unreachable;
    }
  }
}
