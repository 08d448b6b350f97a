import type { CreateSchedule, ListSchedulesQuery, Schedule } from '../schedules/contract.js';
import { type CallOptions, type Requester } from './http.js';

// The typed client's calls for schedules that MCP's tools need: list and create. Members and
// admins create schedules; every reader, agents included, lists them.

export function scheduleCalls(request: Requester) {
  return {
    /** Every schedule, by name; filtered by project and whether enabled. */
    async listSchedules(query: ListSchedulesQuery = {}, call: CallOptions = {}): Promise<Schedule[]> {
      return (await request<Schedule[]>('GET', '/schedules', { query, ...call })).body;
    },

    async createSchedule(body: CreateSchedule, call: CallOptions = {}): Promise<Schedule> {
      return (await request<Schedule>('POST', '/schedules', { body, ...call })).body;
    },
  };
}
