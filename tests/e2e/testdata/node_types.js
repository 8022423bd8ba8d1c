// Reads arrays, object identifiers, catalog strings and timestamps with
// node-postgres, in the text format (its default) and the binary format,
// and prints each row as JSON. tests/e2e/node_test.go runs it against
// the server and compares the lines with PostgreSQL 15's.
const { Client } = require('pg');

async function main() {
  const c = new Client({ connectionString: process.argv[2] });
  await c.connect();
  const cols = 'id, ints, texts, o, n, ch, ts';
  const rows = async (text, binary) => {
    const res = await c.query({ text, binary });
    for (const row of res.rows) {
      for (const k of Object.keys(row)) {
        if (row[k] instanceof Date) row[k] = row[k].toISOString();
      }
      console.log(JSON.stringify({ binary, ...row }));
    }
  };
  await rows(`SELECT ${cols} FROM node_types ORDER BY id`, false);
  await rows(`SELECT ${cols} FROM node_types ORDER BY id`, true);
  await rows("SELECT 'node_types'::regclass AS r, 'node_types'::regclass::oid = c.oid AS same, c.relkind, c.relname FROM pg_class c WHERE c.relname = 'node_types'", false);
  await rows("SELECT ARRAY[1, NULL, 3] AS a, '{\"x y\",\"\",NULL}'::text[] AS b, 4294967295::oid AS big", true);
  await rows("SELECT ARRAY[1, NULL, 3] AS a, '{\"x y\",\"\",NULL}'::text[] AS b, 4294967295::oid AS big", false);
  await c.end();
}

main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
