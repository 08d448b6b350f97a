-- Digests and escalation (PostgreSQL). A question or review is due by `due_at` (its asking time
-- plus its project's answer_within_s, fixed when it is asked; null: never overdue); open past it,
-- it is overdue, and `escalated_at` records that its mail went to the project's escalate_to
-- (once: the scheduler's guarded UPDATE sets it in the commit that writes the escalation mail,
-- and a second instance's UPDATE waits for that commit, then matches nothing).
ALTER TABLE work_questions ADD COLUMN due_at timestamptz;
ALTER TABLE work_questions ADD COLUMN escalated_at timestamptz;
UPDATE work_questions q SET due_at = q.asked_at + make_interval(secs => p.answer_within_s)
  FROM work_items w JOIN projects p ON p.id = w.project_id
  WHERE w.id = q.work_item_id AND p.answer_within_s IS NOT NULL AND q.status = 'open';
-- The scheduler's escalation query and the inbox's overdue filter: open questions with a deadline.
CREATE INDEX work_questions_due ON work_questions (due_at, id) WHERE status = 'open' AND due_at IS NOT NULL;

-- One digest per person and local day: the scheduler inserts the day's row before it writes the
-- digest mail in the same commit; a second instance's insert waits for that commit and then
-- inserts nothing. notification_id is null on a day when nothing waited (no mail, none later).
CREATE TABLE digest_runs (
  person text COLLATE "C" NOT NULL,
  local_date text COLLATE "C" NOT NULL,
  notification_id uuid,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (person, local_date)
);
