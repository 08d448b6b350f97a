-- Prefix indexes for the lengths a word's stem mostly has (3 to 9 letters): every word is
-- searched as its stem's prefix, and without one FTS5 merges the doclists of every word that
-- starts with it before any rowid bound applies. The table is built anew with the option.

DROP TABLE search_fts;
CREATE VIRTUAL TABLE search_fts USING fts5 (
  id, type, description, notes, payload, comments, questions, answers, emails,
  tokenize = 'unicode61 remove_diacritics 2',
  content = '',
  contentless_delete = 1,
  prefix = '3 4 5 6 7 8 9'
);

-- Every document, rebuilt in batches after this transaction; a start cut short goes on here.
CREATE TABLE search_prefix_rebuild (doc INTEGER PRIMARY KEY);
INSERT INTO search_prefix_rebuild (doc) SELECT doc FROM search_docs;

-- batches: (src/shared/db/migrate.ts runs what follows until its last statement deletes nothing)
INSERT INTO search_fts (rowid, id, type, description, notes, payload, comments, questions, answers, emails)
SELECT doc, id, type, description, notes, payload, comments, questions, answers, emails FROM search_source
WHERE doc IN (SELECT doc FROM search_prefix_rebuild ORDER BY doc LIMIT 1000);
DELETE FROM search_prefix_rebuild WHERE doc IN (SELECT doc FROM search_prefix_rebuild ORDER BY doc LIMIT 1000);
