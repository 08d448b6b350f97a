-- An event's id is taken only after its transaction has a transaction id (xid) of its own.
--
-- Ids come from a sequence when the row is inserted, and transactions commit in their own order,
-- so a reader can see id 9 while id 8 is still uncommitted. The event hub holds delivery at such
-- a gap and steps over it only once every transaction that was running when it saw the gap has
-- ended (pg_current_snapshot, pg_xact_status): by then the missing id is committed, and so
-- visible, or it never will be. That holds only if the writer of id 8 already had an xid when
-- id 9 was taken; a bare nextval default gets the id before the insert assigns the xid. This
-- function takes the xid first. (It also needs the sequence's CACHE to stay 1, the default, so
-- that ids are handed out in time order across sessions.)
CREATE FUNCTION next_event_id(counter regclass) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_current_xact_id();
  RETURN nextval(counter);
END
$$;

ALTER TABLE events ALTER COLUMN id SET DEFAULT next_event_id('events_id_seq');
