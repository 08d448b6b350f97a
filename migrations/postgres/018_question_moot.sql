-- A question whose item reached a final status (completed, failed, cancelled) while it was open
-- is closed unanswered, in the same commit: `moot`. It leaves the one-open index, the inbox and
-- the count; answering it is refused.
ALTER TABLE work_questions DROP CONSTRAINT work_questions_status_check;
ALTER TABLE work_questions ADD CONSTRAINT work_questions_status_check CHECK (status IN ('open', 'answered', 'moot'));
