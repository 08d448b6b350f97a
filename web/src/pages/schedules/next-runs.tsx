import type { Preview } from '../../../../src/schedules/schemas.ts';
import { whenText } from '../../lib/schedules.ts';

// Upcoming runs, in the form's preview and on a schedule's detail.

/** The next runs in the viewer's zone, with the schedule's zone's wall time when it differs. */
export function NextRuns(props: { runs: Preview['runs'] | null; tz: string; title?: string }) {
  if (props.runs === null) return null;
  return (
    <div class="next-runs">
      <h3 class="small">{props.title ?? 'Next runs'}</h3>
      {props.runs.length === 0 ? (
        <p class="muted small">None: the schedule has ended.</p>
      ) : (
        <ol data-testid="next-runs">
          {props.runs.map((r) => {
            const when = whenText(r.at, props.tz);
            return (
              <li key={r.at}>
                {/* each time whole on its line: the schedule's zone wraps below, never mid-date */}
                <time class="nowrap" dateTime={r.at}>
                  {when.viewer}
                </time>
                {when.schedule && (
                  <>
                    {' '}
                    <span class="muted nowrap">· {when.schedule}</span>
                  </>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
