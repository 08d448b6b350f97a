import type { Static } from 'typebox';
import type { ClassifyResultSchema } from '../../../src/classify/schemas.ts';

/** The classification service's answer, as its own schema defines it. */
export type Classification = Static<typeof ClassifyResultSchema>;

export const PRIORITY_OF = { high: 1, medium: 3, low: 5 } as const satisfies Record<Classification['priority'], number>;

export interface EmailSource {
  subject: string | null;
  message_id: string | null;
  conversation_id: string | null;
}

/** The POST /work body that turns a classified email into a work item. */
export function emailTaskBody(c: Classification, email: EmailSource) {
  return {
    type: 'email_task',
    description: c.task_description ?? c.details.suggested_title ?? email.subject ?? 'Email needs action',
    priority: PRIORITY_OF[c.priority],
    payload: { classification: c, email },
  };
}

/** What the page knows about the email it sent, for the work item's payload. */
export function emailSourceOf(request: Record<string, unknown>): EmailSource {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const simple = request.email_data;
  const subject =
    typeof simple === 'object' && simple !== null
      ? str((simple as Record<string, unknown>).subject)
      : str(request.subject);
  return {
    subject,
    message_id: str(request.internetMessageId) ?? str(request.id),
    conversation_id: str(request.conversationId),
  };
}
