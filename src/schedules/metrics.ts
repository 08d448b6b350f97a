import { Counter, type Registry } from 'prom-client';
import type { OccurrenceOutcome } from './schemas.js';
import type { ScheduleRow } from './store/tables.js';

// Occurrences by schedule and outcome (made, skipped for overlap, missed, run now, failed):
// counted after their commit. One series per schedule: as many as people set up.

export type OccurrenceCounter = (row: ScheduleRow, outcome: OccurrenceOutcome) => void;

export function createOccurrenceCounter(registry: Registry): OccurrenceCounter {
  const occurrences = new Counter({
    name: 'agentdesk_schedule_occurrences_total',
    help: 'Occurrences schedules reached, by schedule (id and name) and outcome',
    labelNames: ['schedule_id', 'schedule', 'outcome'],
    registers: [registry],
  });
  return (row, outcome) => occurrences.inc({ schedule_id: row.id, schedule: row.name, outcome });
}
