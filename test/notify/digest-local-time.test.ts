import { describe, expect, it } from 'vitest';
import { localMoment, minuteOf } from '../../src/notify/schedule/local-time.js';

// A person's wall clock for the digest: the local date and minute in an IANA zone, summer and
// winter time included, and a local day that differs from UTC's.

describe('the local time of a digest', () => {
  it('08:00 in Berlin is 07:00Z in winter and 06:00Z in summer', () => {
    expect(localMoment(new Date('2027-01-15T07:00:00Z'), 'Europe/Berlin')).toEqual({
      date: '2027-01-15',
      minute: minuteOf('08:00'),
    });
    expect(localMoment(new Date('2027-07-15T06:00:00Z'), 'Europe/Berlin')).toEqual({
      date: '2027-07-15',
      minute: minuteOf('08:00'),
    });
  });

  it("the local day is the zone's, not UTC's", () => {
    expect(localMoment(new Date('2027-01-15T23:30:00Z'), 'Asia/Tokyo')).toEqual({
      date: '2027-01-16',
      minute: 8 * 60 + 30,
    });
    expect(localMoment(new Date('2027-01-15T03:00:00Z'), 'America/New_York')).toEqual({
      date: '2027-01-14',
      minute: 22 * 60,
    });
    expect(localMoment(new Date('2027-01-15T00:00:00Z'), 'UTC')).toEqual({ date: '2027-01-15', minute: 0 });
  });
});
