import type {
  CreateSchedule,
  ListSchedulesQuery,
  Preview,
  PreviewQuery,
  RunNow,
  Schedule,
  ScheduleDetail,
  UpdateSchedule,
} from '../schedules/contract.js';
import { type CallOptions, type Requester } from './http.js';

// The typed client's calls for schedules. Members and admins manage them; every reader,
// agents included, lists, reads and previews them.

const path = (id: string, tail = '') => `/schedules/${encodeURIComponent(id)}${tail}`;

export function scheduleCalls(request: Requester) {
  return {
    /** Every schedule, by name; filtered by project and whether enabled. */
    async listSchedules(query: ListSchedulesQuery = {}, call: CallOptions = {}): Promise<Schedule[]> {
      return (await request<Schedule[]>('GET', '/schedules', { query, ...call })).body;
    },

    /** One schedule with its next five runs and its last 20 occurrences. */
    async getSchedule(id: string, call: CallOptions = {}): Promise<ScheduleDetail> {
      return (await request<ScheduleDetail>('GET', path(id), call)).body;
    },

    async createSchedule(body: CreateSchedule, call: CallOptions = {}): Promise<Schedule> {
      return (await request<Schedule>('POST', '/schedules', { body, ...call })).body;
    },

    /** A new rhythm (cron, tz, starts_at, ends_at) starts at the time of the edit. */
    async updateSchedule(id: string, body: UpdateSchedule, call: CallOptions = {}): Promise<Schedule> {
      return (await request<Schedule>('PATCH', path(id), { body, ...call })).body;
    },

    /** Its occurrences go with it; the items it made stay. */
    async deleteSchedule(id: string, call: CallOptions = {}): Promise<void> {
      await request('DELETE', path(id), call);
    },

    /** One occurrence now, outside the rhythm: its item is made at once. */
    async runSchedule(id: string, call: CallOptions = {}): Promise<RunNow> {
      return (await request<RunNow>('POST', path(id, '/run'), call)).body;
    },

    /** The next five runs of an expression in a zone, without saving. */
    async previewSchedule(query: PreviewQuery, call: CallOptions = {}): Promise<Preview> {
      return (await request<Preview>('GET', '/schedules/preview', { query, ...call })).body;
    },
  };
}
