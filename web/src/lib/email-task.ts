import type { Classification, ClassificationPriority } from './types.ts';

export const PRIORITY_OF = { high: 1, medium: 3, low: 5 } as const satisfies Record<ClassificationPriority, number>;

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
    priority: PRIORITY_OF[c.priority] ?? 3,
    payload: { classification: c, email },
  };
}

/** What the page knows about the email it sent, for the work item's payload. */
export function emailSourceOf(request: Record<string, unknown>): EmailSource {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const simple = request.email_data;
  const subject =
    typeof simple === 'object' && simple !== null ? str((simple as Record<string, unknown>).subject) : str(request.subject);
  return {
    subject,
    message_id: str(request.internetMessageId) ?? str(request.id),
    conversation_id: str(request.conversationId),
  };
}
