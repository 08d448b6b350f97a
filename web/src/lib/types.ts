// Shapes of the classification service's answer (issue 3), which the work service forwards from
// POST /ui-api/classify. The work-item shapes come from src/work/schemas.ts.

export type ClassificationPriority = 'high' | 'medium' | 'low';

export interface ClassificationDetails {
  summary: string | null;
  suggested_title: string | null;
  suggested_notes: string | null;
  deadline: string | null;
  people: string[];
  organizations: string[];
  attachments_referenced: string[];
  next_steps: string[];
  key_points: string[];
  source_signals: string[];
  dedupe_key: string | null;
}

export interface Dedupe {
  status: 'new' | 'duplicate' | 'updated';
  seen_count: number;
  matched_on: 'none' | 'id' | 'conversation' | 'fingerprint';
  message_id: string | null;
  conversation_id: string | null;
  fingerprint: string;
}

export interface Classification {
  needs_action: boolean;
  category: string;
  priority: ClassificationPriority;
  task_description: string | null;
  reasoning: string;
  confidence: number;
  details: ClassificationDetails;
  dedupe: Dedupe;
}
