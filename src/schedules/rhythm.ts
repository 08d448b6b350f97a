import { Cron } from 'croner';
import { isKnownTimeZone } from '../notify/index.js';
import { ValidationError } from '../shared/errors.js';
import { CRON_NICKNAMES, NEXT_RUNS, type RunTime } from './schemas.js';

// A schedule's rhythm: its cron expression read by croner in its IANA zone. croner settles the
// daylight-saving days: a fixed time that does not exist that day (02:30 on spring-forward) runs
// at the first valid time after the gap, and one that occurs twice (fall-back) runs once.

export interface Rhythm {
  /** The first occurrence strictly after `after`, within [starts_at, ends_at]; null when none. */
  nextAfter(after: Date): Date | null;
  /** Up to `count` occurrences strictly after `after`, oldest first. */
  nextRuns(count: number, after: Date): Date[];
  /** The latest `count` occurrences at or before `until` and at or after `from`, oldest first. */
  runsBetween(from: Date, until: Date, count: number): Date[];
}

export interface RhythmInput {
  cron: string;
  tz: string;
  starts_at?: string | null;
  ends_at?: string | null;
}

/** The rhythm of a schedule; a ValidationError naming the field when the cron, zone or window is wrong. */
export function rhythmOf({ cron, tz, starts_at = null, ends_at = null }: RhythmInput): Rhythm {
  if (!isKnownTimeZone(tz)) {
    throw ValidationError.of('tz', `${JSON.stringify(tz)} is not an IANA time zone this server knows`);
  }
  const expression = cron.trim();
  if (expression.startsWith('@') && !(CRON_NICKNAMES as readonly string[]).includes(expression.toLowerCase())) {
    throw ValidationError.of('cron', `use five fields or one of ${CRON_NICKNAMES.join(', ')}`);
  }
  let parsed: Cron;
  try {
    // Five fields only (no seconds, no years); day-of-month and day-of-week combine with OR, as in Vixie cron.
    parsed = new Cron(expression.toLowerCase().startsWith('@') ? expression.toLowerCase() : expression, {
      timezone: tz,
      paused: true,
      mode: '5-part',
    });
  } catch (error) {
    throw ValidationError.of('cron', error instanceof Error ? error.message : String(error));
  }
  const starts = starts_at === null ? null : new Date(starts_at);
  const ends = ends_at === null ? null : new Date(ends_at);
  if (starts !== null && ends !== null && ends <= starts) {
    throw ValidationError.of('ends_at', 'must be after starts_at');
  }
  const within = (at: Date) => (starts === null || at >= starts) && (ends === null || at <= ends);
  // "at or after starts_at": croner's `after` is exclusive, so start a millisecond before it.
  const from = (after: Date) => (starts !== null && after < starts ? new Date(starts.getTime() - 1) : after);

  const rhythm: Rhythm = {
    nextAfter(after) {
      const next = parsed.nextRun(from(after));
      return next !== null && within(next) ? next : null;
    },
    nextRuns(count, after) {
      return parsed.nextRuns(count, from(after)).filter(within);
    },
    runsBetween(start, until, count) {
      const end = ends !== null && ends < until ? ends : until;
      return parsed
        .previousRuns(count, new Date(end.getTime() + 1))
        .filter((at) => at >= start && within(at))
        .reverse();
    },
  };
  if (parsed.nextRuns(1, new Date(0)).length === 0) {
    throw ValidationError.of('cron', 'matches no date (a day that no month has?)');
  }
  return rhythm;
}

const partsFormats = new Map<string, Intl.DateTimeFormat>();

/** `at` in `tz` as ISO 8601 with that zone's offset then, e.g. 2027-03-28T03:00:00+02:00. */
export function localIso(at: Date | string, tz: string): string {
  const instant = typeof at === 'string' ? new Date(at) : at;
  let format = partsFormats.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    });
    partsFormats.set(tz, format);
  }
  const part = Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, p.value]));
  const offset = part.timeZoneName === 'GMT' ? '+00:00' : String(part.timeZoneName).replace('GMT', '');
  const ms = instant.getUTCMilliseconds();
  const fraction = ms === 0 ? '' : `.${String(ms).padStart(3, '0')}`;
  return `${part.year}-${part.month}-${part.day}T${part.hour}:${part.minute}:${part.second}${fraction}${offset}`;
}

export function runTime(at: Date | string, tz: string): RunTime {
  const instant = typeof at === 'string' ? new Date(at) : at;
  return { at: instant.toISOString(), local: localIso(instant, tz) };
}

/** The next five runs after `after`, UTC and local: the form's preview and a schedule's page. */
export function upcoming(rhythm: Rhythm, tz: string, after: Date): RunTime[] {
  return rhythm.nextRuns(NEXT_RUNS, after).map((at) => runTime(at, tz));
}
