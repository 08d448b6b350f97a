-- Answer links and reply addresses (PostgreSQL): the desk's own secrets, made once and shared by
-- every instance on this database, and how each answer came (the API, a reply by email, a signed link).

CREATE TABLE app_secrets (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL
);

-- null for answers given before it was recorded
ALTER TABLE work_questions ADD COLUMN answered_via text CHECK (answered_via IN ('api', 'email', 'link'));
