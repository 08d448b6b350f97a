-- Full-text search (PostgreSQL): one weighted tsvector per item in its own table, with GIN,
-- kept by triggers in the writing transaction. No stemming in the index: the query widens each
-- word to its stems' prefixes, so both stores match the same words.

-- Accents folded by unaccent when it can be installed here (in public, so every schema sees
-- it); else by translate() over the Latin letters with accents, which covers the four
-- languages searched. Punctuation becomes space, so both stores split words at the same places.
DO $do$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public;
  EXCEPTION WHEN OTHERS THEN
    NULL;
  END;
  IF EXISTS (SELECT 1 FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
             WHERE e.extname = 'unaccent' AND n.nspname = 'public') THEN
    EXECUTE $f$CREATE FUNCTION search_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
      $b$SELECT regexp_replace(lower(public.unaccent('public.unaccent'::regdictionary, coalesce(t, ''))), '[[:punct:]]+', ' ', 'g')$b$$f$;
  ELSE
    EXECUTE $f$CREATE FUNCTION search_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
      $b$SELECT regexp_replace(translate(lower(coalesce(t, '')),
        'àáâãäåāçćčèéêëēėęìíîïīñńòóôõöōùúûüūýÿžźż',
        'aaaaaaaccceeeeeeeiiiiinnoooooouuuuuyyzzz'), '[[:punct:]]+', ' ', 'g')$b$$f$;
  END IF;
END
$do$;

-- No foreign key: its check would be one more query on every submit; the delete trigger below
-- removes an item's document instead.
CREATE TABLE work_search (
  item_id uuid PRIMARY KEY,
  doc tsvector NOT NULL
);
CREATE INDEX work_search_doc ON work_search USING gin (doc);

-- The texts of an item itself (id, type, description; notes and payload strings), weighted.
CREATE FUNCTION search_own_text(w work_items) RETURNS tsvector LANGUAGE sql STABLE AS $$
  SELECT
    setweight(to_tsvector('simple', search_fold(w.id::text || ' ' || w.type || ' ' || w.description)), 'A') ||
    CASE WHEN w.notes IS NULL AND w.payload IS NULL THEN ''::tsvector
    ELSE setweight(to_tsvector('simple', search_fold(coalesce(w.notes, '') || ' ' || coalesce(
      (SELECT string_agg(v #>> '{}', ' ') FROM jsonb_path_query(w.payload::jsonb, 'strict $.**') v
       WHERE jsonb_typeof(v) = 'string'), ''))), 'B') END
$$;

-- The document: id, type and description weigh most (A), notes and payload strings next (B),
-- the conversation (C), the mail (D). Rank and weights: src/search/store/postgres.ts.
CREATE FUNCTION search_document(item uuid) RETURNS tsvector LANGUAGE sql STABLE AS $$
  SELECT
    search_own_text(w) ||
    setweight(to_tsvector('simple', search_fold(
      coalesce((SELECT string_agg(c.body, ' ') FROM work_comments c
                WHERE c.work_item_id = w.id AND c.kind IN ('note', 'progress')), '') || ' ' ||
      coalesce((SELECT string_agg(q.question || ' ' || coalesce(q.answer, ''), ' ') FROM work_questions q
                WHERE q.work_item_id = w.id), ''))), 'C') ||
    setweight(to_tsvector('simple', search_fold(
      coalesce((SELECT string_agg(c.body, ' ') FROM work_comments c
                WHERE c.work_item_id = w.id AND c.kind = 'email'), '') || ' ' ||
      coalesce((SELECT string_agg(coalesce(m.subject, '') || ' ' || coalesce(m.sender, ''), ' ') FROM intake_messages m
                WHERE m.work_item_id = w.id), ''))), 'D')
  FROM work_items w WHERE w.id = item
$$;

CREATE FUNCTION search_refresh(item uuid) RETURNS void LANGUAGE sql AS $$
  INSERT INTO work_search (item_id, doc)
  SELECT w.id, search_document(w.id) FROM work_items w WHERE w.id = item
  ON CONFLICT (item_id) DO UPDATE SET doc = excluded.doc
$$;

-- The submit path: a new item has no comments, questions or mail yet, so nothing else is read.
CREATE FUNCTION search_item_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- The common case written out here, where plpgsql keeps its plan: a call per row costs more.
  INSERT INTO work_search (item_id, doc) VALUES (NEW.id,
    CASE WHEN NEW.notes IS NULL AND NEW.payload IS NULL
      THEN setweight(to_tsvector('simple', search_fold(NEW.id::text || ' ' || NEW.type || ' ' || NEW.description)), 'A')
      ELSE search_own_text(NEW) END);
  RETURN NULL;
END
$$;

CREATE FUNCTION search_item_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM search_refresh(NEW.id);
  RETURN NULL;
END
$$;

CREATE FUNCTION search_item_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM work_search WHERE item_id = OLD.id;
  RETURN NULL;
END
$$;

CREATE FUNCTION search_part_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.work_item_id IS NOT NULL THEN
    PERFORM search_refresh(OLD.work_item_id);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.work_item_id IS NOT NULL
     AND (TG_OP = 'INSERT' OR NEW.work_item_id IS DISTINCT FROM OLD.work_item_id) THEN
    PERFORM search_refresh(NEW.work_item_id);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER search_item_insert AFTER INSERT ON work_items
  FOR EACH ROW EXECUTE FUNCTION search_item_inserted();
-- Status moves, claims and heartbeats leave the text alone and never reach the index.
CREATE TRIGGER search_item_update AFTER UPDATE OF type, description, notes, payload ON work_items
  FOR EACH ROW
  WHEN (OLD.type IS DISTINCT FROM NEW.type OR OLD.description IS DISTINCT FROM NEW.description
        OR OLD.notes IS DISTINCT FROM NEW.notes OR OLD.payload IS DISTINCT FROM NEW.payload)
  EXECUTE FUNCTION search_item_changed();
CREATE TRIGGER search_item_delete AFTER DELETE ON work_items
  FOR EACH ROW EXECUTE FUNCTION search_item_deleted();
CREATE TRIGGER search_comment_change AFTER INSERT OR DELETE ON work_comments
  FOR EACH ROW EXECUTE FUNCTION search_part_changed();
CREATE TRIGGER search_question_change AFTER INSERT OR DELETE OR UPDATE OF question, answer ON work_questions
  FOR EACH ROW EXECUTE FUNCTION search_part_changed();
CREATE TRIGGER search_mail_change AFTER INSERT OR DELETE OR UPDATE OF work_item_id, subject, sender ON intake_messages
  FOR EACH ROW EXECUTE FUNCTION search_part_changed();

-- Existing items, in one statement of the migration's transaction.
INSERT INTO work_search (item_id, doc) SELECT id, search_document(id) FROM work_items;
