-- ntprof cache: which tables a prepared session holds, for lib/cache.c,
-- which keeps them in a cache file between processes (docs/performance.md,
-- "How a run is prepared") and, when a later process opens the same
-- recordings, reads them from there instead of preparing the run again.

-- How a session treats this view (join.sql, _ntp_view_plan): it reads only
-- the plan.
INSERT INTO _ntp_view_plan VALUES
  ('_ntp_cache_table', NULL, 0, 0);

-- The views ntp_session_prepare computes into tables in this session,
-- in their order: the rows of _ntp_prepare_step's plan (join.sql), one per
-- view.
CREATE TEMP VIEW _ntp_cache_table AS
SELECT
  p.cache_ord AS ord,                          -- the caching order
  p.name AS name,                              -- the TEMP view
  '_' || ltrim(p.name, '_') || '_cache' AS tbl, -- the table it reads once prepared
  -- 1: prepared only for a session that wants it (join.sql, cache_when 3
  -- and 4): a kept run may lack it, and a session that wants it adds it
  p.cache_when IN (3, 4) AS more,
  -- its index (_ntp_cache_index), NULL if none: its name, its columns and
  -- the SQL a file stores for it
  CASE WHEN i.cols IS NOT NULL THEN '_' || ltrim(p.name, '_') || '_cache_i' END AS idx,
  i.cols AS idx_cols,
  CASE WHEN i.cols IS NOT NULL
    THEN printf('CREATE INDEX "%w" ON "%w" (%s)', '_' || ltrim(p.name, '_') || '_cache_i',
      '_' || ltrim(p.name, '_') || '_cache', i.cols) END AS idx_sql
FROM _ntp_view_plan AS p
LEFT JOIN _ntp_cache_index AS i ON i.name = p.name
WHERE p.cache_ord IS NOT NULL
  AND p.cache_when IN (SELECT cache_when FROM _ntp_cache_when)
ORDER BY p.cache_ord;
