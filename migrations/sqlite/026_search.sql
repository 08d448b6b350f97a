-- Full-text search (SQLite): one FTS5 document per item, kept by triggers in the writing
-- transaction. Contentless with deletes: the texts live in their own tables, the index holds
-- tokens only (accents folded, no stemming: the query widens each word to its stems' prefixes).

-- FTS5 rowids must be integers and work_items has a text key whose implicit rowid VACUUM may
-- renumber: this table names each item's document.
CREATE TABLE search_docs (
  doc INTEGER PRIMARY KEY,
  item_id TEXT NOT NULL UNIQUE
);

CREATE VIRTUAL TABLE search_fts USING fts5 (
  id, type, description, notes, payload, comments, questions, answers, emails,
  tokenize = 'unicode61 remove_diacritics 2',
  content = '',
  contentless_delete = 1
);

-- A document's columns, read from the rows the item owns; the triggers and the backfill share it.
CREATE VIEW search_source AS
SELECT
  d.doc,
  w.id AS item_id,
  w.id,
  w.type,
  w.description,
  coalesce(w.notes, '') AS notes,
  coalesce((SELECT group_concat(j.value, ' ') FROM json_tree(w.payload) j WHERE j.type = 'text'), '') AS payload,
  coalesce((SELECT group_concat(c.body, ' ') FROM work_comments c
            WHERE c.work_item_id = w.id AND c.kind IN ('note', 'progress')), '') AS comments,
  coalesce((SELECT group_concat(q.question, ' ') FROM work_questions q WHERE q.work_item_id = w.id), '') AS questions,
  coalesce((SELECT group_concat(q.answer, ' ') FROM work_questions q WHERE q.work_item_id = w.id), '') AS answers,
  coalesce((SELECT group_concat(c.body, ' ') FROM work_comments c
            WHERE c.work_item_id = w.id AND c.kind = 'email'), '')
    || ' ' ||
  coalesce((SELECT group_concat(coalesce(m.subject, '') || ' ' || coalesce(m.sender, ''), ' ') FROM intake_messages m
            WHERE m.work_item_id = w.id), '') AS emails
FROM work_items w JOIN search_docs d ON d.item_id = w.id;

-- The submit path: the new item's own columns only (it has no comments or mail yet).
CREATE TRIGGER search_item_insert AFTER INSERT ON work_items BEGIN
  INSERT INTO search_docs (item_id) VALUES (new.id);
  INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  VALUES (
    last_insert_rowid(), new.id, new.type, new.description, coalesce(new.notes, ''),
    coalesce((SELECT group_concat(j.value, ' ') FROM json_tree(new.payload) j WHERE j.type = 'text'), ''),
    '', '', '', ''
  );
END;

-- Status moves, claims and heartbeats leave the text alone and never reach the index.
CREATE TRIGGER search_item_update AFTER UPDATE OF type, description, notes, payload ON work_items
WHEN old.type IS NOT new.type OR old.description IS NOT new.description
  OR old.notes IS NOT new.notes OR old.payload IS NOT new.payload
BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT doc FROM search_docs WHERE item_id = new.id);
  INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_source WHERE item_id = new.id;
END;

CREATE TRIGGER search_item_delete AFTER DELETE ON work_items BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT doc FROM search_docs WHERE item_id = old.id);
  DELETE FROM search_docs WHERE item_id = old.id;
END;

CREATE TRIGGER search_comment_insert AFTER INSERT ON work_comments BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT doc FROM search_docs WHERE item_id = new.work_item_id);
  INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_source WHERE item_id = new.work_item_id;
END;

CREATE TRIGGER search_comment_delete AFTER DELETE ON work_comments BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT doc FROM search_docs WHERE item_id = old.work_item_id);
  INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_source WHERE item_id = old.work_item_id;
END;

CREATE TRIGGER search_question_insert AFTER INSERT ON work_questions BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT doc FROM search_docs WHERE item_id = new.work_item_id);
  INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_source WHERE item_id = new.work_item_id;
END;

CREATE TRIGGER search_question_update AFTER UPDATE OF question, answer ON work_questions
WHEN old.question IS NOT new.question OR old.answer IS NOT new.answer
BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT doc FROM search_docs WHERE item_id = new.work_item_id);
  INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_source WHERE item_id = new.work_item_id;
END;

CREATE TRIGGER search_question_delete AFTER DELETE ON work_questions BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT doc FROM search_docs WHERE item_id = old.work_item_id);
  INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_source WHERE item_id = old.work_item_id;
END;

CREATE TRIGGER search_mail_insert AFTER INSERT ON intake_messages WHEN new.work_item_id IS NOT NULL BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT doc FROM search_docs WHERE item_id = new.work_item_id);
  INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_source WHERE item_id = new.work_item_id;
END;

CREATE TRIGGER search_mail_update AFTER UPDATE OF work_item_id, subject, sender ON intake_messages BEGIN
  DELETE FROM search_fts WHERE rowid IN (SELECT doc FROM search_docs WHERE item_id IN (old.work_item_id, new.work_item_id));
  INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_source WHERE item_id IN (old.work_item_id, new.work_item_id);
END;

CREATE TRIGGER search_mail_delete AFTER DELETE ON intake_messages WHEN old.work_item_id IS NOT NULL BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT doc FROM search_docs WHERE item_id = old.work_item_id);
  INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_source WHERE item_id = old.work_item_id;
END;

-- Existing items: one statement in the migration's transaction (a desk of this era is small
-- enough; the benchmark measures how long a large one takes).
INSERT INTO search_docs (item_id) SELECT id FROM work_items ORDER BY created_at, id;
INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails FROM search_source;
