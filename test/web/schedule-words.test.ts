import { describe, expect, it } from 'vitest';
import { EXAMPLES, rhythmInWords, whenText } from '../../web/src/lib/schedules.js';

// How the Schedules page words a rhythm and a time, without a browser: the common shapes in
// words, anything else left to the cron itself; a time in the viewer's zone and the schedule's.

describe('a rhythm in words', () => {
  it('says the common shapes and each example the form offers', () => {
    expect(rhythmInWords('30 8 * * 1-5')).toBe('Every weekday at 08:30');
    expect(rhythmInWords(' 0 9 * * * ')).toBe('Every day at 09:00');
    expect(rhythmInWords('0 9 * * 1')).toBe('Every Monday at 09:00');
    expect(rhythmInWords('0 9 * * 7')).toBe('Every Sunday at 09:00');
    expect(rhythmInWords('0 0 31 * *')).toBe('Day 31 of each month at 00:00');
    expect(rhythmInWords('15 * * * *')).toBe('Every hour at :15');
    expect(rhythmInWords('*/15 * * * *')).toBe('Every 15 minutes');
    expect(rhythmInWords('@weekly')).toBe('Every Sunday at 00:00');
    for (const example of EXAMPLES) expect(rhythmInWords(example.cron)).not.toBeNull();
  });

  it('leaves the rest to the cron: lists, ranges, months, nonsense', () => {
    for (const cron of ['0 9 * * 1,3', '0 9-17 * * *', '0 9 1 1 *', '0 0 L * *', '61 8 * * *', 'every day', ''])
      expect(rhythmInWords(cron), cron).toBeNull();
  });
});

describe('a time', () => {
  it('in the viewer’s zone, and the schedule’s when it is another', () => {
    const at = '2027-06-01T06:30:00.000Z';
    const viewer = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(whenText(at, viewer).schedule).toBeNull();
    const other = viewer === 'Asia/Tokyo' ? 'Europe/Berlin' : 'Asia/Tokyo';
    // The reader's locale picks the clock: 15:30 or 03:30 PM.
    expect(whenText(at, other).schedule).toMatch(other === 'Asia/Tokyo' ? /15:30|0?3:30\sPM/ : /08:30|0?8:30\sAM/);
  });
});
