-- Each document's place in the index, newer documents higher: relevance ranks a common text's
-- matches among the newest places only, and reads older matches by place
-- (src/search/store/ranked-window.ts). SQLite's FTS rowid is its place already.

CREATE SEQUENCE work_search_places AS bigint;
ALTER TABLE work_search ADD COLUMN seq bigint;
ALTER TABLE work_search ALTER COLUMN seq SET DEFAULT nextval('work_search_places');
CREATE INDEX work_search_seq ON work_search (seq);

-- A document keeps its place when it is rebuilt: an upsert would draw a place it then drops,
-- and the gaps would make the newest places hold fewer items than on SQLite.
CREATE OR REPLACE FUNCTION search_refresh(item uuid) RETURNS void LANGUAGE sql AS $$
  UPDATE work_search SET doc = search_document(item) WHERE item_id = item;
  INSERT INTO work_search (item_id, doc)
  SELECT w.id, search_document(w.id) FROM work_items w
  WHERE w.id = item AND NOT EXISTS (SELECT 1 FROM work_search x WHERE x.item_id = item)
  ON CONFLICT (item_id) DO NOTHING;
$$;

-- Existing documents take places in their items' order of creation, in batches after this
-- transaction; new ones are placed after them.
CREATE TABLE search_place_fill (item_id uuid PRIMARY KEY, place bigint NOT NULL);
INSERT INTO search_place_fill (item_id, place)
  SELECT s.item_id, row_number() OVER (ORDER BY w.created_at, w.id)
  FROM work_search s JOIN work_items w ON w.id = s.item_id;
CREATE INDEX search_place_fill_place ON search_place_fill (place);
SELECT setval('work_search_places', (SELECT count(*) + 1 FROM search_place_fill), false);

-- batches: (src/shared/db/migrate.ts runs what follows until its last statement deletes nothing)
UPDATE work_search s SET seq = f.place
FROM (SELECT item_id, place FROM search_place_fill ORDER BY place LIMIT 1000) f WHERE s.item_id = f.item_id;
DELETE FROM search_place_fill WHERE item_id IN (SELECT item_id FROM search_place_fill ORDER BY place LIMIT 1000);
