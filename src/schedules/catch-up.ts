import type { MissedPolicy } from './schemas.js';

// What a pass does with the occurrences a schedule reached since it last fired: those at most
// GRACE_MS late are made; older ones follow the schedule's `missed` policy. Pure: the pass asks,
// then writes what this answers (overlap is decided later, against the previous item).

/** An occurrence this late or less is made late, whatever the policy. */
export const GRACE_MS = 60_000;
/** The missed occurrences listed per pass: the latest ones; the rest are summed in the oldest's reason. */
export const MISSED_ROWS = 100;

export interface Step {
  at: Date;
  kind: 'make' | 'missed';
  reason: string | null;
}

export interface CatchUpInput {
  /** The occurrences reached, oldest first (the latest ones, when there were more). */
  times: readonly Date[];
  /** True when `times` holds only the latest of more occurrences. */
  truncated: boolean;
  now: Date;
  missed: MissedPolicy;
  max_catchup: number;
}

const DOWN = 'more than 60 s late (the desk was down or the schedule disabled)';

export function catchUp({ times, truncated, now, missed, max_catchup }: CatchUpInput): Step[] {
  const onTime = times.filter((at) => now.getTime() - at.getTime() <= GRACE_MS);
  const late = times.filter((at) => now.getTime() - at.getTime() > GRACE_MS);
  const steps: Step[] = [];
  let made: Date[] = [];
  let reason = `${DOWN}; missed: ${missed}`;
  switch (missed) {
    case 'skip':
      break;
    case 'once':
      if (onTime.length === 0 && late.length > 0) made = [late.at(-1)!];
      reason = onTime.length === 0 ? `${DOWN}; missed: once makes only the latest` : `${DOWN}; one on time since`;
      break;
    case 'all':
      made = late.slice(-max_catchup);
      reason = `${DOWN}; beyond max_catchup (${max_catchup})`;
      break;
    default: {
      const unknown: never = missed;
      throw new Error(`no missed policy ${String(unknown)}`);
    }
  }
  const skipped = late.filter((at) => !made.includes(at));
  const listed = skipped.slice(-MISSED_ROWS);
  const unlisted = skipped.length - listed.length;
  listed.forEach((at, index) => {
    const more =
      index === 0 && (unlisted > 0 || truncated)
        ? `; ${truncated ? 'more' : unlisted} earlier occurrences not listed`
        : '';
    steps.push({ at, kind: 'missed', reason: `${reason}${more}` });
  });
  for (const at of [...made, ...onTime]) steps.push({ at, kind: 'make', reason: null });
  return steps.sort((a, b) => a.at.getTime() - b.at.getTime());
}
