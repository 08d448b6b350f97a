import type {
  MAX_CATCHUP as SERVICE_MAX_CATCHUP,
  MissedPolicy,
  OverlapPolicy,
  RunTime,
  Schedule,
} from '../../../src/schedules/schemas.ts';

// Schedules as a person reads them: the rhythm in words where it is a common one (else the cron
// itself), times in the viewer's zone with the schedule's beside them, and the example rhythms
// the form offers so "every weekday at 08:30" is one click.

export const EXAMPLES: ReadonlyArray<{ label: string; cron: string }> = [
  { label: 'Every weekday at 08:30', cron: '30 8 * * 1-5' },
  { label: 'Every day at 09:00', cron: '0 9 * * *' },
  { label: 'Mondays at 09:00', cron: '0 9 * * 1' },
  { label: 'The 1st of the month at 09:00', cron: '0 9 1 * *' },
  { label: 'Every hour', cron: '0 * * * *' },
];

// Types only from the schemas (their values would bundle TypeBox): the compiler still holds these
// to the service's policies and limits.
export const MAX_CATCHUP: typeof SERVICE_MAX_CATCHUP = { min: 1, max: 1000, default: 100 };
export const MISSED_HINTS: Record<MissedPolicy, string> = {
  skip: 'skip: make none of them',
  once: 'once: make the latest',
  all: 'all: make each, oldest first',
};
export const OVERLAP_HINTS: Record<OverlapPolicy, string> = {
  allow: 'allow: make the next one anyway',
  skip: 'skip: make none until it is done',
};

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const NICKNAMES: Record<string, string> = {
  '@hourly': 'Every hour',
  '@daily': 'Every day at 00:00',
  '@weekly': 'Every Sunday at 00:00',
  '@monthly': 'The 1st of the month at 00:00',
};

const number = (field: string, max: number) => (/^\d{1,2}$/.test(field) && Number(field) <= max ? Number(field) : null);
const pad = (n: number) => String(n).padStart(2, '0');

/** "Every weekday at 08:30" for the common shapes; null for anything else (show the cron). */
export function rhythmInWords(cron: string): string | null {
  const trimmed = cron.trim();
  if (NICKNAMES[trimmed.toLowerCase()]) return NICKNAMES[trimmed.toLowerCase()] ?? null;
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 5) return null;
  const [min = '', hour = '', dom = '', month = '', dow = ''] = fields;
  if (month !== '*') return null;
  const m = number(min, 59);
  const every = /^\*\/(\d{1,2})$/.exec(min);
  if (hour === '*' && dom === '*' && dow === '*') {
    if (m === 0) return 'Every hour';
    if (m !== null) return `Every hour at :${pad(m)}`;
    if (every) return `Every ${every[1]} minutes`;
    return null;
  }
  const h = number(hour, 23);
  if (m === null || h === null) return null;
  const at = `at ${pad(h)}:${pad(m)}`;
  if (dom === '*' && dow === '*') return `Every day ${at}`;
  if (dom === '*' && (dow === '1-5' || dow === 'MON-FRI')) return `Every weekday ${at}`;
  if (dom === '*' && (dow === '0,6' || dow === '6,0')) return `Every weekend day ${at}`;
  const day = number(dow, 7);
  if (dom === '*' && day !== null) return `Every ${DAYS[day % 7]} ${at}`;
  const date = number(dom, 31);
  if (dow === '*' && date !== null && date >= 1) return `Day ${date} of each month ${at}`;
  return null;
}

/** The browser's own zone: what "08:30" means to the person typing it. */
export function viewerZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

const formats = new Map<string, Intl.DateTimeFormat>();
function formatIn(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat(undefined, {
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZone: zone,
      timeZoneName: 'short',
    });
    formats.set(zone, format);
  }
  return format;
}

/** An instant in a zone, "Mon, 7 Dec 2026, 08:30 CET"; the ISO text when the zone is unknown here. */
export function formatInZone(iso: string, zone: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  try {
    return formatIn(zone).format(t);
  } catch {
    return iso;
  }
}

/** An instant in the viewer's zone, and in the schedule's when that is another zone. */
export function whenText(iso: string, zone: string): { viewer: string; schedule: string | null } {
  const mine = viewerZone();
  const viewer = formatInZone(iso, mine);
  const there = zone === mine ? null : formatInZone(iso, zone);
  return { viewer, schedule: there === viewer ? null : there };
}

export function runText(run: RunTime, zone: string) {
  return whenText(run.at, zone);
}

export function schedulePath(s: Pick<Schedule, 'id'>, tail = ''): string {
  return `/schedules/${encodeURIComponent(s.id)}${tail}`;
}
