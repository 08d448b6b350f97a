// A person's wall clock: the local date and minute of an instant in an IANA zone, for the digest.

/** A digest with no digest_at goes out at this local time. */
export const DEFAULT_DIGEST_AT = '08:00';
/** A profile with no tz reads its digest_at in UTC. */
export const DEFAULT_TZ = 'UTC';

export interface LocalMoment {
  /** 'YYYY-MM-DD' in the zone. */
  date: string;
  /** Minutes since local midnight. */
  minute: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(tz: string): Intl.DateTimeFormat {
  let format = formats.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(tz, format);
  }
  return format;
}

export function localMoment(at: Date, tz: string): LocalMoment {
  const parts = Object.fromEntries(
    formatFor(tz)
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    minute: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** 'HH:MM' as minutes since midnight. */
export function minuteOf(hhmm: string): number {
  const [hours, minutes] = hhmm.split(':').map(Number);
  return hours! * 60 + minutes!;
}
