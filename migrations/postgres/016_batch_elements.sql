-- The elements of a batch statement's JSON input, counted as one row by the planner.
--
-- The hot statements are prepared once per connection, and after a few runs PostgreSQL keeps one
-- plan for them whatever the parameters, until the tables' statistics change. The work store's
-- change statement read its batch with jsonb_array_elements (the dedupe's save with
-- json_to_recordset), which the planner counts as 100 rows: on a table without statistics yet (a
-- new database, or autovacuum off) hashing the whole table looked cheaper than a hundred probes of
-- its primary key, and that plan stayed as the table grew, one full scan per claim, completion
-- or save. A batch holds one row, or a few dozen; counted as one, the plan probes the primary
-- key once per row at any size.
--
-- PL/pgSQL, because a SQL function this simple would be inlined and counted as 100 rows again.

CREATE FUNCTION batch_elements(batch jsonb) RETURNS TABLE (value jsonb, ord bigint)
  LANGUAGE plpgsql IMMUTABLE STRICT ROWS 1 AS $$
BEGIN
  RETURN QUERY SELECT e.value, e.ord FROM jsonb_array_elements(batch) WITH ORDINALITY AS e(value, ord);
END
$$;
