-- ntprof-collect's live account of what is missing: for the interval
-- :interval that has just ended, the records lost and the points stored
-- records lack, each with its cause. The collector prints the same from the
-- counts it writes to lost and gap (lib/live.c; tests/test_live.c compares
-- the two); the stored views ntp_lost_by_cause and ntp_gap_by_cause give
-- the same over the whole recording.
--
-- Columns, as printed ("ntprof: N records lost in this interval: WHY",
-- "ntprof: N records lack POINT in this interval: WHY"), lost records
-- first, then by point and cause:
--   point   NULL for lost records, else the missing point (h_rx, ...)
--   n       how many
--   why     cause.description
--   cause   cause.code
SELECT NULL AS point, l.n AS n, c.description AS why, c.code AS cause
FROM lost AS l
JOIN cause AS c ON c.code = l.cause
WHERE l.interval = :interval
UNION ALL
SELECT g.point, g.n, c.description, c.code
FROM gap AS g
JOIN cause AS c ON c.code = g.cause
WHERE g.interval = :interval
ORDER BY point, cause;
