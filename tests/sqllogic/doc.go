// Package sqllogic runs sqllogictest files against a PostgreSQL-wire
// server: the third-party corpus vendored in testdata/corpus (described
// by its README.md, which this package follows for the format and the
// rendering rules) and our own .slt files in testdata/freshet.
//
// Parse turns a file into Records; Run (or RunScript) runs them in order
// on a DB and returns a FileResult with one outcome per statement and
// query. Conn is the DB of a pgx connection; tests use fakes. The
// command in cmd/slt runs files and folders against a server, each on a
// fresh database.
//
// # Glossary
//
//   - Record: a run of non-blank lines: optional conditions, then a
//     statement, a query, or a control record (hash-threshold, halt).
//     Lines starting with '#' are comments anywhere; control lines may
//     end in a "# comment".
//   - Condition: "skipif <engine>" or "onlyif <engine>" in front of a
//     record. Files are run as one engine (Options.Engine, postgresql by
//     default).
//   - Column types: one letter per result column, I (integer), R (real)
//     or T (text); they decide how a value is rendered (Value.Render).
//   - Sort mode: nosort, rowsort or valuesort; how the rendered result is
//     ordered before it is compared (Sort).
//   - Hashed result: "N values hashing to H", where H is the MD5 of the
//     sorted rendered values each followed by "\n" (Hash). A file stores
//     it instead of the values when a result has more values than the
//     hash threshold.
//   - Label: a name that queries share when they must produce the same
//     result hash, such as rewrites of one query for several engines.
//
// One addition to the corpus's format, for our own files: "statement
// error <regexp>" requires the error's text, "ERROR: <message>
// (SQLSTATE <code>)" through Conn, to match the regular expression, so a
// file can pin a SQLSTATE. The corpus writes bare "statement error".
//
// # Invariants
//
//   - A record's Line is its first line (its first condition, else its
//     header), and every failure message starts with "file:line: ".
//   - Statements and queries are counted before conditions: Script.Count
//     is what the corpus README's table lists.
//   - Values are rendered from their text and type OID only, so any DB
//     that keeps both gives the same rendering as PostgreSQL's.
//   - Run sends records to the DB one at a time, in file order, from the
//     calling goroutine.
//
// # Imports
//
// This package imports the standard library and github.com/jackc/pgx/v5
// only; no package of the module. It tests the server from the outside,
// through the wire protocol, like any client.
package sqllogic
