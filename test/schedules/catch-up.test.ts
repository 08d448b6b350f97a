import { describe, expect, it } from 'vitest';
import { GRACE_MS, MISSED_ROWS, catchUp } from '../../src/schedules/catch-up.js';
import { rhythmOf } from '../../src/schedules/rhythm.js';

// The catch-up rule alone: what a pass makes and lists after a long outage of a minutely
// schedule (the missed rows capped, the rest counted in the oldest row's reason), and the grace.

const now = new Date('2027-02-01T12:00:30.000Z');
const minutely = rhythmOf({ cron: '* * * * *', tz: 'UTC' });

describe('catching up', () => {
  it('a day down with skip lists the latest missed occurrences only and says how many more there were', () => {
    const times = minutely.runsBetween(new Date('2027-01-31T12:00:00.000Z'), now, 2_000);
    expect(times).toHaveLength(1_441);
    const steps = catchUp({ times, truncated: false, now, missed: 'skip', max_catchup: 100 });
    expect(steps.filter((step) => step.kind === 'make').map((step) => step.at.toISOString())).toEqual([
      '2027-02-01T12:00:00.000Z',
    ]);
    const missed = steps.filter((step) => step.kind === 'missed');
    expect(missed).toHaveLength(MISSED_ROWS);
    expect(missed[0]!.reason).toContain(`${1_440 - MISSED_ROWS} earlier occurrences not listed`);
    expect(missed[1]!.reason).not.toContain('not listed');
  });

  it('all with a cap makes the latest max_catchup late ones, oldest first; more than the pass read is "more"', () => {
    const times = minutely.runsBetween(new Date('2027-01-01T00:00:00.000Z'), now, 5 + MISSED_ROWS);
    const steps = catchUp({ times, truncated: true, now, missed: 'all', max_catchup: 5 });
    const made = steps.filter((step) => step.kind === 'make').map((step) => step.at.toISOString().slice(11, 16));
    // 12:00 is within the grace: made besides the five late ones.
    expect(made).toEqual(['11:55', '11:56', '11:57', '11:58', '11:59', '12:00']);
    expect(steps[0]).toMatchObject({ kind: 'missed' });
    expect(steps[0]!.reason).toContain('more earlier occurrences not listed');
  });

  it('an occurrence GRACE_MS late is on time; a millisecond more is missed', () => {
    const at = new Date(now.getTime() - GRACE_MS);
    expect(catchUp({ times: [at], truncated: false, now, missed: 'skip', max_catchup: 1 })[0]!.kind).toBe('make');
    const later = new Date(now.getTime() + 1);
    expect(catchUp({ times: [at], truncated: false, now: later, missed: 'skip', max_catchup: 1 })[0]!.kind).toBe(
      'missed',
    );
  });
});
