import type { ScheduleDetail } from '../../../../src/schedules/schemas.ts';
import { UserText } from '../../components/user-text.tsx';
import { href } from '../../lib/router.ts';
import { whenText } from '../../lib/schedules.ts';

// A schedule's last occurrences, newest first: when each was due, and the item it made or the
// service's reason why none was made.

const OUTCOMES: Record<ScheduleDetail['occurrences'][number]['outcome'], string> = {
  made: 'made',
  run_now: 'run now',
  skipped_overlap: 'skipped (overlap)',
  missed: 'missed',
  failed: 'failed',
};

export function Occurrences(props: { schedule: ScheduleDetail }) {
  const { occurrences, tz } = props.schedule;
  return (
    <div class="occurrences">
      <h3 class="small">Occurrences</h3>
      {occurrences.length === 0 ? (
        <p class="muted small">None yet.</p>
      ) : (
        <ol data-testid="occurrences">
          {occurrences.map((o) => {
            const when = whenText(o.occurrence_at, tz);
            return (
              <li key={o.occurrence_at}>
                <time dateTime={o.occurrence_at}>{when.viewer}</time>{' '}
                <span class={`pill outcome-${o.outcome}`}>{OUTCOMES[o.outcome]}</span>{' '}
                {o.work_item_id ? (
                  <a href={href(`/items/${o.work_item_id}`)}>Open item</a>
                ) : (
                  <span class="muted break">
                    <UserText text={o.reason ?? 'no item'} />
                  </span>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
