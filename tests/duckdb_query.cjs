// SPDX-License-Identifier: BSD-2-Clause
// Run the SQL files given, in order, in one in-memory DuckDB through npm's
// @duckdb/node-api, and print the rows of the last file's last statement
// as CSV with a header: NULL an empty field, text with a comma, a quote or
// a line break quoted. For tests/fleet_test.sh (docs/fleet.md's DuckDB
// recipe). usage: NODE_PATH=DIR/node_modules node duckdb_query.cjs FILE.sql...
'use strict';
const fs = require('fs');
const { DuckDBInstance } = require('@duckdb/node-api');

function field(v) {
  if (v === null || v === undefined)
    return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  let r;
  for (const f of process.argv.slice(2))
    r = await c.runAndReadAll(fs.readFileSync(f, 'utf8'));
  const out = [r.columnNames().map(field).join(',')];
  for (const row of r.getRowsJson())
    out.push(row.map(field).join(','));
  process.stdout.write(out.join('\n') + '\n');
})().catch((e) => {
  console.error(`duckdb_query: ${e.message}`);
  process.exit(1);
});
