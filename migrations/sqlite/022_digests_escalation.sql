-- Digests and escalation (SQLite). A question or review is due by `due_at` (its asking time plus
-- its project's answer_within_s, fixed when it is asked; null: never overdue); open past it, it
-- is overdue, and `escalated_at` records that its mail went to the project's escalate_to (once:
-- the scheduler's guarded UPDATE sets it in the commit that writes the escalation mail).
ALTER TABLE work_questions ADD COLUMN due_at TEXT;
ALTER TABLE work_questions ADD COLUMN escalated_at TEXT;
UPDATE work_questions SET due_at = (
  SELECT strftime('%Y-%m-%dT%H:%M:%fZ', work_questions.asked_at, '+' || p.answer_within_s || ' seconds')
  FROM work_items w JOIN projects p ON p.id = w.project_id
  WHERE w.id = work_questions.work_item_id AND p.answer_within_s IS NOT NULL
) WHERE status = 'open';
-- The scheduler's escalation query and the inbox's overdue filter: open questions with a deadline.
CREATE INDEX work_questions_due ON work_questions (due_at, id) WHERE status = 'open' AND due_at IS NOT NULL;

-- One digest per person and local day: the scheduler inserts the day's row before it writes the
-- digest mail in the same commit; a second instance's insert finds it and writes nothing.
-- notification_id is null on a day when nothing waited (no mail, and none later that day).
CREATE TABLE digest_runs (
  person TEXT NOT NULL,
  local_date TEXT NOT NULL,
  notification_id TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (person, local_date)
);
