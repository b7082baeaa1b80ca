-- Helper views for the "--@" queries of sql/ (sql/expand.c), which write
-- the lists of components and stages from vocab.sql at build time. Read
-- after vocab.sql by the build only: neither embedded nor installed.

-- The lists of components and stages, each in report order (i from 1, of n):
--   host:   the host's components (its ntp_cmd_span), end to end last;
--   target: the target's (its ntp_cmd_span), t_e2e last;
--   joined: a joined command's (ntp_joined), end to end last;
--   all:    every component (ntp_command's), t_e2e last;
--   part:   every component but the totals (the time series' sums);
--   sum:    the components a stage of ntp_command sums (the tail bands');
--   stage:  the stages of a host's report and of a joined one (ntp_command's
--           sums), storage last.
-- In that order: wrap() and group_concat() over this view see the items
-- in it (an aggregate's subquery keeps its ORDER BY).
CREATE VIEW gen_list AS
SELECT * FROM (
  SELECT list, row_number() OVER (PARTITION BY list ORDER BY ord) AS i,
    count(*) OVER (PARTITION BY list) AS n, name, role, optional, total
  FROM (
    SELECT 'host' AS list, * FROM component WHERE role = 'host'
    UNION ALL
    SELECT 'target', * FROM component WHERE role = 'target'
    UNION ALL
    SELECT 'joined', * FROM component WHERE stage_joined IS NOT NULL OR name = 'e2e'
    UNION ALL
    SELECT 'all', * FROM component
    UNION ALL
    SELECT 'part', * FROM component WHERE NOT total
    UNION ALL
    SELECT 'sum', * FROM component
    WHERE stage_joined IS NOT NULL OR (role = 'host' AND stage_local IS NOT NULL)
    UNION ALL
    SELECT 'stage', name, ord, NULL, NULL, NULL, NULL, NULL, NULL FROM stage AS s
    WHERE EXISTS (SELECT 1 FROM component AS c
                  WHERE c.stage_joined = s.name OR (c.role = 'host' AND c.stage_local = s.name))))
ORDER BY list, i;

-- ntp_cmd_component of a role's stored views: one arm per component, in
-- order, the first naming the columns, the last ending the statement.
CREATE VIEW gen_cmd_component AS
SELECT list AS role, i,
  CASE i WHEN 1 THEN 'SELECT t, grp, ''' || name || ''' AS component, ' || name || ' AS ns'
    ELSE 'UNION ALL' || char(10) || 'SELECT t, grp, ''' || name || ''', ' || name END
  || ' FROM ntp_cmd_span' || CASE WHEN i = n THEN ';' ELSE '' END AS line
FROM gen_list
WHERE list IN ('host', 'target');

-- Whether each component is one of a form's: the host's, the target's or
-- a joined command's (gen_list's lists of the same names).
CREATE VIEW gen_in AS
SELECT name, role = 'host' AS in_host, role = 'target' AS in_target,
  stage_joined IS NOT NULL OR name = 'e2e' AS in_joined
FROM component;

-- Each stage of ntp_command (gen_list's 'stage') as the sum of its
-- components, "$" standing for the table they are read from: in a joined
-- report (component.stage_joined), in a host's (stage_local, its own
-- components), and as ntp_command has it, by whether the command was
-- matched ($matched). An optional component (R2T) counts 0 where missing.
CREATE VIEW gen_stage AS
WITH s(stage, mode, expr) AS (
  SELECT stage, mode, wrap(CASE WHEN optional THEN 'ifnull($' || name || ', 0)'
                            ELSE '$' || name END, 0, '', ' + ')
  FROM (SELECT c.*, s.name AS stage, 'joined' AS mode
        FROM gen_list AS s JOIN component AS c ON c.stage_joined = s.name
        WHERE s.list = 'stage'
        UNION ALL
        SELECT c.*, s.name, 'host'
        FROM gen_list AS s JOIN component AS c ON c.stage_local = s.name AND c.role = 'host'
        WHERE s.list = 'stage'
        ORDER BY stage, mode, ord)
  GROUP BY stage, mode
)
SELECT l.name, l.i, j.expr AS joined_expr, h.expr AS host_expr,
  CASE WHEN j.expr IS h.expr THEN j.expr
    WHEN h.expr IS NULL THEN j.expr
    WHEN j.expr IS NULL THEN 'CASE WHEN NOT $matched THEN ' || h.expr || ' END'
    ELSE 'CASE WHEN $matched THEN ' || j.expr || ' ELSE ' || h.expr || ' END' END
    AS command_expr
FROM gen_list AS l
LEFT JOIN s AS j ON j.stage = l.name AND j.mode = 'joined'
LEFT JOIN s AS h ON h.stage = l.name AND h.mode = 'host'
WHERE l.list = 'stage'
ORDER BY l.i;
