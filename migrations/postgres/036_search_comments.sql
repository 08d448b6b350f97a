-- A new comment adds its own words to its item's document instead of rebuilding the whole of
-- it from every comment, question and mail: notes and progress weigh as the conversation (C),
-- email as the mail (D), as search_document weighs them; other kinds are not indexed. A
-- deleted comment still rebuilds the document, which then takes search_document's order again.

CREATE FUNCTION search_comment_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.kind IN ('note', 'progress', 'email') THEN
      UPDATE work_search
      SET doc = doc || setweight(to_tsvector('simple', search_fold(NEW.body)),
                                 CASE WHEN NEW.kind = 'email' THEN 'D' ELSE 'C' END::"char")
      WHERE item_id = NEW.work_item_id;
    END IF;
  ELSIF OLD.kind IN ('note', 'progress', 'email') THEN
    PERFORM search_refresh(OLD.work_item_id);
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER search_comment_change ON work_comments;
CREATE TRIGGER search_comment_change AFTER INSERT OR DELETE ON work_comments
  FOR EACH ROW EXECUTE FUNCTION search_comment_changed();
