import type { ApiProblem } from '../lib/api.ts';

/** Shows the service's own words for a refusal: its detail and any per-field messages. */
export function ProblemMessage({ problem }: { problem: ApiProblem | null }) {
  if (problem === null) return null;
  return (
    <div class="problem" role="alert">
      <strong>{problem.title}</strong>
      {problem.detail !== problem.title && <span class="problem-detail">{problem.detail}</span>}
      {problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((e) => (
            <li key={e.field}>
              <code>{e.field}</code>: {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
