-- Answer links and reply addresses (SQLite): the desk's own secrets, made once and shared by every
-- instance on this database, and how each answer came (the API, a reply by email, a signed link).

CREATE TABLE app_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL
);

-- null for answers given before it was recorded
ALTER TABLE work_questions ADD COLUMN answered_via TEXT CHECK (answered_via IN ('api', 'email', 'link'));
