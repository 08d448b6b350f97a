-- The newest documents again, in an index of their own: bm25 weighs each phrase by how many
-- documents hold it, walking all of them first, so a common word ranked among the newest items
-- of search_fts walks the whole desk's matches; ranked here, it walks a few thousand at most.

CREATE VIRTUAL TABLE search_recent USING fts5 (
  id, type, description, notes, payload, comments, questions, answers, emails,
  tokenize = 'unicode61 remove_diacritics 2',
  content = '',
  contentless_delete = 1
);

-- search_recent holds the documents above `floor`, 8,000 to 9,000 of them: four times the window
-- the store ranks or more, so a reader paging while items arrive stays on it. The oldest thousand
-- leave together: one FTS5 delete between inserts of newer rows costs far more than a run of them.
-- The floor never goes down (a deleted newest item's number is given again).
CREATE TABLE search_recent_floor (
  only INTEGER PRIMARY KEY CHECK (only = 1),
  floor INTEGER NOT NULL
);
INSERT INTO search_recent_floor (only, floor) SELECT 1, max(0, coalesce(max(doc), 0) - 8000) FROM search_docs;

INSERT INTO search_recent (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails FROM search_source
WHERE doc > (SELECT floor FROM search_recent_floor);

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
  INSERT INTO search_recent (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  VALUES (
    (SELECT doc FROM search_docs WHERE item_id = new.id),
    lower(replace(new.id, '-', '')) || ' ' || lower(substr(new.id, 1, 8)),
    new.type, new.description, coalesce(new.notes, ''),
    coalesce((SELECT group_concat(j.value, ' ') FROM json_tree(new.payload) j WHERE j.type = 'text'), ''),
    '', '', '', ''
  );
END;

-- Apart, so that an insert that removes nothing reads no more than the two numbers. Whether it
-- runs before or after the trigger above, the floor only moves with the documents it removes.
CREATE TRIGGER search_recent_prune AFTER INSERT ON work_items
WHEN (SELECT max(doc) FROM search_docs) - (SELECT floor FROM search_recent_floor) > 9000
BEGIN
  DELETE FROM search_recent WHERE rowid IN (SELECT doc FROM search_docs
    WHERE doc > (SELECT floor FROM search_recent_floor) AND doc <= (SELECT floor FROM search_recent_floor) + 1000);
  UPDATE search_recent_floor SET floor = floor + 1000;
END;

-- The other writes rebuild a document of search_recent as search_fts's own triggers do, when
-- the document is above the floor (the older ones are not in it).
DROP TRIGGER search_item_delete;
CREATE TRIGGER search_item_delete AFTER DELETE ON work_items BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT doc FROM search_docs WHERE item_id = old.id);
  DELETE FROM search_recent WHERE rowid = (SELECT doc FROM search_docs WHERE item_id = old.id
    AND doc > (SELECT floor FROM search_recent_floor));
  DELETE FROM search_docs WHERE item_id = old.id;
END;

CREATE VIEW search_recent_source AS
SELECT s.* FROM search_source s WHERE s.doc > (SELECT floor FROM search_recent_floor);

CREATE TRIGGER search_recent_item_update AFTER UPDATE OF type, description, notes, payload ON work_items
WHEN old.type IS NOT new.type OR old.description IS NOT new.description
  OR old.notes IS NOT new.notes OR old.payload IS NOT new.payload
BEGIN
  DELETE FROM search_recent WHERE rowid = (SELECT doc FROM search_recent_source WHERE item_id = new.id);
  INSERT INTO search_recent (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_recent_source WHERE item_id = new.id;
END;

CREATE TRIGGER search_recent_comment_insert AFTER INSERT ON work_comments BEGIN
  DELETE FROM search_recent WHERE rowid = (SELECT doc FROM search_recent_source WHERE item_id = new.work_item_id);
  INSERT INTO search_recent (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_recent_source WHERE item_id = new.work_item_id;
END;

CREATE TRIGGER search_recent_comment_delete AFTER DELETE ON work_comments BEGIN
  DELETE FROM search_recent WHERE rowid = (SELECT doc FROM search_recent_source WHERE item_id = old.work_item_id);
  INSERT INTO search_recent (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_recent_source WHERE item_id = old.work_item_id;
END;

CREATE TRIGGER search_recent_question_insert AFTER INSERT ON work_questions BEGIN
  DELETE FROM search_recent WHERE rowid = (SELECT doc FROM search_recent_source WHERE item_id = new.work_item_id);
  INSERT INTO search_recent (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_recent_source WHERE item_id = new.work_item_id;
END;

CREATE TRIGGER search_recent_question_update AFTER UPDATE OF question, answer ON work_questions
WHEN old.question IS NOT new.question OR old.answer IS NOT new.answer
BEGIN
  DELETE FROM search_recent WHERE rowid = (SELECT doc FROM search_recent_source WHERE item_id = new.work_item_id);
  INSERT INTO search_recent (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_recent_source WHERE item_id = new.work_item_id;
END;

CREATE TRIGGER search_recent_question_delete AFTER DELETE ON work_questions BEGIN
  DELETE FROM search_recent WHERE rowid = (SELECT doc FROM search_recent_source WHERE item_id = old.work_item_id);
  INSERT INTO search_recent (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_recent_source WHERE item_id = old.work_item_id;
END;

CREATE TRIGGER search_recent_mail_insert AFTER INSERT ON intake_messages WHEN new.work_item_id IS NOT NULL BEGIN
  DELETE FROM search_recent WHERE rowid = (SELECT doc FROM search_recent_source WHERE item_id = new.work_item_id);
  INSERT INTO search_recent (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_recent_source WHERE item_id = new.work_item_id;
END;

CREATE TRIGGER search_recent_mail_update AFTER UPDATE OF work_item_id, subject, sender ON intake_messages BEGIN
  DELETE FROM search_recent WHERE rowid IN (SELECT doc FROM search_recent_source
    WHERE item_id IN (old.work_item_id, new.work_item_id));
  INSERT INTO search_recent (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_recent_source WHERE item_id IN (old.work_item_id, new.work_item_id);
END;

CREATE TRIGGER search_recent_mail_delete AFTER DELETE ON intake_messages WHEN old.work_item_id IS NOT NULL BEGIN
  DELETE FROM search_recent WHERE rowid = (SELECT doc FROM search_recent_source WHERE item_id = old.work_item_id);
  INSERT INTO search_recent (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
  SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails
  FROM search_recent_source WHERE item_id = old.work_item_id;
END;
