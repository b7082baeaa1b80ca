#!/bin/sh
# sql-expand (sql/expand.c): the lists of sql/ written from vocab.sql. A run
# of "--@" lines is replaced by its query's rows; a query that gives no row,
# a NULL, two columns or an error stops the build with the file and line,
# and no output file. Run from the repository root after make.
set -u
top=$(pwd)
X=${SQL_EXPAND:-$top/.output/sql-expand}
DEFS="$top/sql/vocab.sql $top/sql/lists.sql"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expand TEXT: write TEXT as in.sql and expand it into out.sql (rc in $rc)
expand() {
	printf '%s\n' "$1" > "$d/in.sql"
	rm -f "$d/out.sql"
	# shellcheck disable=SC2086
	"$X" "$d/in.sql" "$d/out.sql" $DEFS 2> "$d/err"
	rc=$?
}

# A list, wrapped by count and by width, between lines kept as they are.
expand "SELECT
--@ SELECT wrap('c.' || name, 4, '  ', ', ') || ',' FROM gen_list WHERE list = 'host'
  -- kept
--@ SELECT wrap('WHEN ''' || name || ''' THEN ' || i, -48, '    ', ' ') FROM gen_list WHERE list = 'target'
FROM c;"
want="SELECT
  c.h_blk_sub, c.h_drv_sub, c.h_r2t, c.h_wait,
  c.h_rx_path, c.h_drv_cpl, c.h_blk_cpl, c.h_handoff,
  c.e2e,
  -- kept
    WHEN 't_rx_path' THEN 1
    WHEN 't_drv_sub' THEN 2
    WHEN 't_data_wait' THEN 3
    WHEN 't_storage' THEN 4
    WHEN 't_drv_cpl' THEN 5 WHEN 't_e2e' THEN 6
FROM c;"
if [ $rc = 0 ] && [ "$(cat "$d/out.sql")" = "$want" ]; then ok; else
	bad "expansion: rc $rc, got:"; cat "$d/out.sql" "$d/err" >&2
fi

# A stage's sum, with the optional component counted 0 where missing.
expand "--@ SELECT name || ' = ' || replace(command_expr, '\$', 'c.') FROM gen_stage WHERE name IN ('host_driver', 'host_rx')"
want="host_driver = c.h_drv_sub + ifnull(c.h_r2t, 0) + c.h_drv_cpl + c.h_handoff
host_rx = CASE WHEN NOT c.matched THEN c.h_rx_path END"
if [ $rc = 0 ] && [ "$(cat "$d/out.sql")" = "$want" ]; then ok; else
	bad "stage sums: rc $rc, got:"; cat "$d/out.sql" "$d/err" >&2
fi

# Each error names the line of the query and writes nothing.
fails() { # WHAT MESSAGE TEXT
	expand "$3"
	if [ $rc = 1 ] && [ ! -e "$d/out.sql" ] && [ ! -e "$d/out.sql.tmp" ] &&
	   grep -q "in.sql:2: $2" "$d/err"; then ok; else
		bad "$1: rc $rc, out $(ls "$d"), err: $(cat "$d/err")"
	fi
}
fails "no row" "the query gives no line" "x
--@ SELECT name FROM gen_list WHERE list = 'none'"
fails "a NULL" "the query's row 1 is NULL" "x
--@ SELECT NULL"
fails "two columns" "the query gives 2 columns, not one" "x
--@ SELECT 1, 2"
fails "bad SQL" "no such column: nope" "x
--@ SELECT nope FROM gen_list"
fails "two statements" "one query per run" "x
--@ SELECT 1; SELECT 2"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
