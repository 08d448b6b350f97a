-- Item ids in the search index as two whole tokens: the 32 hex digits without hyphens and the
-- first 8 that the UI shows. Split at its hyphens, an id let a plain word (1042) match one of its
-- groups. Queries reach the id column only with an id (src/search/store/sqlite.ts).

DROP VIEW search_source;
CREATE VIEW search_source AS
SELECT
  d.doc,
  w.id AS item_id,
  lower(replace(w.id, '-', '')) || ' ' || lower(substr(w.id, 1, 8)) AS id,
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

-- The submit path, as in 026 with the id's two tokens; the other triggers read search_source.
DROP TRIGGER search_item_insert;
CREATE TRIGGER search_item_insert AFTER INSERT ON work_items BEGIN
  INSERT INTO search_docs (item_id) VALUES (new.id);
  INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  VALUES (
    last_insert_rowid(), lower(replace(new.id, '-', '')) || ' ' || lower(substr(new.id, 1, 8)),
    new.type, new.description, coalesce(new.notes, ''),
    coalesce((SELECT group_concat(j.value, ' ') FROM json_tree(new.payload) j WHERE j.type = 'text'), ''),
    '', '', '', ''
  );
END;

-- Existing documents, rebuilt in batches after this transaction (a contentless table keeps no
-- text to rewrite one column from). Until its turn, a document is found by its words, not its id.
CREATE TABLE search_id_rebuild (doc INTEGER PRIMARY KEY);
INSERT INTO search_id_rebuild (doc) SELECT doc FROM search_docs;

-- batches: (src/shared/db/migrate.ts runs what follows until its last statement deletes nothing)
DELETE FROM search_fts WHERE rowid IN (SELECT doc FROM search_id_rebuild ORDER BY doc LIMIT 1000);
INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails FROM search_source
WHERE doc IN (SELECT doc FROM search_id_rebuild ORDER BY doc LIMIT 1000);
DELETE FROM search_id_rebuild WHERE doc IN (SELECT doc FROM search_id_rebuild ORDER BY doc LIMIT 1000);
