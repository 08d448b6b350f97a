import type { CONVERSATION_EVENTS as SERVER_CONVERSATION_EVENTS } from '../../../src/conversation/rows.ts';
import type { STREAM_EVENTS as SERVER_STREAM_EVENTS } from '../../../src/work/events/hub.ts';
import type { WORK_EVENTS as SERVER_WORK_EVENTS } from '../../../src/work/items/changes.ts';
import type { PROJECT_EVENTS as SERVER_PROJECT_EVENTS } from '../../../src/work/projects/service.ts';

// The names of the live stream's events. The server's lists sit in modules that import Node
// code, so the page keeps its own copy; `satisfies` fails the type check when the two differ.

export const WORK_EVENTS = {
  created: 'work.created',
  updated: 'work.updated',
  deleted: 'work.deleted',
} as const satisfies typeof SERVER_WORK_EVENTS;

export const PROJECT_EVENTS = {
  created: 'project.created',
  updated: 'project.updated',
} as const satisfies typeof SERVER_PROJECT_EVENTS;

export const CONVERSATION_EVENTS = {
  commented: 'work.commented',
  asked: 'question.asked',
  answered: 'question.answered',
  moot: 'question.moot',
} as const satisfies typeof SERVER_CONVERSATION_EVENTS;

export const STREAM_EVENTS = {
  reset: 'reset',
} as const satisfies typeof SERVER_STREAM_EVENTS;
