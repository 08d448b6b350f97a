-- Item ids in the search index as two whole lexemes, '#' and the 32 hex digits without hyphens,
-- '#' and the first 8 that the UI shows. Split at its hyphens, an id let a plain word (1042)
-- match one of its groups; no word or prefix a user types holds '#' (src/search/store/postgres.ts).

CREATE FUNCTION search_id_lexemes(id uuid) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ('#' || replace(id::text, '-', '') || ':1A #' || left(id::text, 8) || ':2A')::tsvector
$$;

CREATE OR REPLACE FUNCTION search_own_text(w work_items) RETURNS tsvector LANGUAGE sql STABLE AS $$
  SELECT
    search_id_lexemes(w.id) ||
    setweight(to_tsvector('simple', search_fold(w.type || ' ' || w.description)), 'A') ||
    CASE WHEN w.notes IS NULL AND w.payload IS NULL THEN ''::tsvector
    ELSE setweight(to_tsvector('simple', search_fold(coalesce(w.notes, '') || ' ' || coalesce(
      (SELECT string_agg(v #>> '{}', ' ') FROM jsonb_path_query(w.payload::jsonb, 'strict $.**') v
       WHERE jsonb_typeof(v) = 'string'), ''))), 'B') END
$$;

CREATE OR REPLACE FUNCTION search_item_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- The common case written out here, where plpgsql keeps its plan: a call per row costs more.
  INSERT INTO work_search (item_id, doc) VALUES (NEW.id,
    CASE WHEN NEW.notes IS NULL AND NEW.payload IS NULL
      THEN search_id_lexemes(NEW.id) ||
        setweight(to_tsvector('simple', search_fold(NEW.type || ' ' || NEW.description)), 'A')
      ELSE search_own_text(NEW) END);
  RETURN NULL;
END
$$;

-- Existing documents, rebuilt in batches after this transaction (search_document reads
-- search_own_text). Until its turn, a document keeps its id's groups as words.
CREATE TABLE search_id_rebuild (item_id uuid PRIMARY KEY);
INSERT INTO search_id_rebuild (item_id) SELECT item_id FROM work_search;

-- batches: (src/shared/db/migrate.ts runs what follows until its last statement deletes nothing)
UPDATE work_search s SET doc = search_document(s.item_id)
WHERE s.item_id IN (SELECT item_id FROM search_id_rebuild ORDER BY item_id LIMIT 1000);
DELETE FROM search_id_rebuild WHERE item_id IN (SELECT item_id FROM search_id_rebuild ORDER BY item_id LIMIT 1000);
