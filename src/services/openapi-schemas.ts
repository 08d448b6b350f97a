import {
  SessionSchema,
  CreateTokenSchema,
  CreatedTokenSchema,
  PrincipalSchema,
  SignInSchema,
  TokenRecordSchema,
} from '../auth/contract.js';
import { ClassifyRequestSchema, ClassifyResultSchema } from '../classify/contract.js';
import { UsageReportSchema } from '../classify/index.js';
import {
  AnswerSchema,
  AskSchema,
  CommentSchema,
  CreateCommentSchema,
  InboxEntrySchema,
  LinkSchema,
  QuestionCountsSchema,
  QuestionSchema,
} from '../conversation/contract.js';
import {
  ConnectionTestSchema,
  CreateMailboxSchema,
  ImportAcceptedSchema,
  IntakeMessageSchema,
  MailboxSchema,
  UpdateMailboxSchema,
} from '../intake/contract.js';
import { NotificationSchema, PersonSchema, PutPersonSchema } from '../notify/contract.js';
import {
  CreateScheduleSchema,
  OccurrenceSchema,
  PreviewSchema,
  RunNowSchema,
  ScheduleDetailSchema,
  ScheduleSchema,
  UpdateScheduleSchema,
} from '../schedules/contract.js';
import type { NamedSchemas } from '../shared/http/openapi.js';
import { HealthSchema, ProblemSchema } from '../shared/http/schemas.js';
import {
  CreatePlanSchema,
  SubmittedPlanSchema,
  BlockerSchema,
  ChildCountsSchema,
  ClaimSchema,
  CreateProjectSchema,
  CreateWorkItemSchema,
  DispatchEntrySchema,
  HeartbeatSchema,
  HistoryEntrySchema,
  ProjectSchema,
  StatusCountsSchema,
  UpdateProjectSchema,
  UpdateWorkItemSchema,
  WorkItemDetailSchema,
  WorkItemSchema,
  WorkItemSummarySchema,
  WorkStatsSchema,
} from '../work/contract.js';

// The types each OpenAPI document names in components.schemas, so that a client generated from
// it has them by name (WorkItem, Problem, Question, ...): the main answers and request bodies.
// The routes keep their TypeBox schemas; the document refers to these wherever one occurs.

/** Named in both documents. */
const SHARED: NamedSchemas['responses'] = {
  Problem: ProblemSchema,
  Health: HealthSchema,
  Principal: PrincipalSchema,
  Session: SessionSchema,
};

export const WORK_SCHEMAS: NamedSchemas = {
  responses: {
    ...SHARED,
    WorkItem: WorkItemSchema,
    WorkItemSummary: WorkItemSummarySchema,
    WorkItemDetail: WorkItemDetailSchema,
    DispatchEntry: DispatchEntrySchema,
    Blocker: BlockerSchema,
    ChildCounts: ChildCountsSchema,
    HistoryEntry: HistoryEntrySchema,
    StatusCounts: StatusCountsSchema,
    WorkStats: WorkStatsSchema,
    SubmittedPlan: SubmittedPlanSchema,
    Project: ProjectSchema,
    Comment: CommentSchema,
    Link: LinkSchema,
    Question: QuestionSchema,
    InboxEntry: InboxEntrySchema,
    QuestionCounts: QuestionCountsSchema,
    Mailbox: MailboxSchema,
    ConnectionTest: ConnectionTestSchema,
    IntakeMessage: IntakeMessageSchema,
    ImportAccepted: ImportAcceptedSchema,
    TokenRecord: TokenRecordSchema,
    CreatedToken: CreatedTokenSchema,
    UsageReport: UsageReportSchema,
    Notification: NotificationSchema,
    Person: PersonSchema,
    Schedule: ScheduleSchema,
    ScheduleDetail: ScheduleDetailSchema,
    Occurrence: OccurrenceSchema,
    SchedulePreview: PreviewSchema,
    ScheduleRun: RunNowSchema,
  },
  requests: {
    CreateWorkItem: CreateWorkItemSchema,
    UpdateWorkItem: UpdateWorkItemSchema,
    Claim: ClaimSchema,
    Heartbeat: HeartbeatSchema,
    CreatePlan: CreatePlanSchema,
    CreateProject: CreateProjectSchema,
    UpdateProject: UpdateProjectSchema,
    CreateComment: CreateCommentSchema,
    Ask: AskSchema,
    Answer: AnswerSchema,
    CreateMailbox: CreateMailboxSchema,
    UpdateMailbox: UpdateMailboxSchema,
    CreateToken: CreateTokenSchema,
    SignIn: SignInSchema,
    PutPerson: PutPersonSchema,
    CreateSchedule: CreateScheduleSchema,
    UpdateSchedule: UpdateScheduleSchema,
  },
};

export const CLASSIFY_SCHEMAS: NamedSchemas = {
  responses: { ...SHARED, ClassifyResult: ClassifyResultSchema, UsageReport: UsageReportSchema },
  requests: { ClassifyRequest: ClassifyRequestSchema },
};
