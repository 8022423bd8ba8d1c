package e2e

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// biOracle, when set, makes TestBICatalog write testdata/bi_catalog.out
// from the PostgreSQL server at that URL instead of testing Freshet
// (testdata/bi_catalog_regen.sh sets it).
var biOracle = flag.String("bi-oracle", "", "PostgreSQL URL to write testdata/bi_catalog.out from")

const (
	biQueriesFile  = "testdata/bi_catalog.sql"
	biSchemaFile   = "testdata/bi_catalog_schema.sql"
	biExpectedFile = "testdata/bi_catalog.out"
	// biQueryMark starts a query in biQueriesFile and its answer in
	// biExpectedFile.
	biQueryMark = "-- query: "
	// firstUserOID is where PostgreSQL and Freshet both start numbering
	// user objects; below it every OID is a fixed built-in one.
	firstUserOID = 16384
	// oidTypeOID is the type oid's own OID.
	oidTypeOID = 26
)

// TestBICatalog runs the catalog and session queries that BI tools
// (Metabase, Grafana, Superset, DBeaver, Tableau), drivers (Npgsql,
// pgjdbc) and an ORM (SQLAlchemy) send when they connect and sync,
// each written in our own words over the same relations, columns,
// functions and join shapes (testdata/bi_catalog.sql), against the
// binary holding testdata/bi_catalog_schema.sql, and compares every
// answer (column names, then rows) with PostgreSQL 15's in
// testdata/bi_catalog.out.
//
// The comparison is exact but for user-object OIDs, which differ
// between the two servers: a value of a column of type oid that is
// 16384 or more is printed as <user oid>. Built-in OIDs (types,
// namespaces, pg_class's 1259) are compared as they are. The session
// connects as the role freshet, which owns everything in Freshet, and
// the expected file is written by that role on PostgreSQL, so owner
// and user names agree.
//
// To write the expected file again: testdata/bi_catalog_regen.sh URL.
func TestBICatalog(t *testing.T) {
	queries := readBIQueries(t)
	if *biOracle != "" {
		writeBIExpected(t, *biOracle, queries)
		return
	}
	expected := readBIExpected(t)
	s := startBinary(t)
	conn := connectBI(t, fmt.Sprintf("postgres://freshet@%s/freshet?sslmode=disable", s.addr))
	loadBISchema(t, conn)
	for _, q := range queries {
		want, ok := expected[q.name]
		if !ok {
			t.Errorf("%s: no expected answer in %s (run testdata/bi_catalog_regen.sh)", q.name, biExpectedFile)
			continue
		}
		if got := runBIQuery(conn, q.sql); got != want {
			t.Errorf("%s:\n%s\n got:\n%s\nwant:\n%s", q.name, q.sql, got, want)
		}
	}
	if len(expected) != len(queries) {
		t.Errorf("%s has %d answers for %d queries", biExpectedFile, len(expected), len(queries))
	}
}

// biQuery is one query of biQueriesFile: its name and its text, the
// comment lines that say what it stands for included.
type biQuery struct{ name, sql string }

func readBIQueries(t *testing.T) []biQuery {
	t.Helper()
	data, err := os.ReadFile(biQueriesFile)
	if err != nil {
		t.Fatal(err)
	}
	var queries []biQuery
	seen := map[string]bool{}
	for i, part := range strings.Split(string(data), "\n"+biQueryMark) {
		if i == 0 {
			continue // the file's header
		}
		name, sql, _ := strings.Cut(part, "\n")
		sql = strings.TrimSpace(sql)
		if name == "" || sql == "" || seen[name] {
			t.Fatalf("%s: query %d (%q) has no name, no text or a name used before", biQueriesFile, i, name)
		}
		seen[name] = true
		queries = append(queries, biQuery{name: name, sql: sql})
	}
	return queries
}

// readBIExpected maps each query's name to its answer as runBIQuery
// prints it.
func readBIExpected(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(biExpectedFile)
	if err != nil {
		t.Fatal(err)
	}
	expected := map[string]string{}
	for _, block := range strings.Split(string(data), biQueryMark)[1:] {
		name, answer, _ := strings.Cut(block, "\n")
		expected[name] = strings.TrimSuffix(answer, "\n\n")
	}
	return expected
}

// writeBIExpected loads the schema into the PostgreSQL database at url,
// which should be empty, and writes every query's answer there to
// biExpectedFile.
func writeBIExpected(t *testing.T, url string, queries []biQuery) {
	conn := connectBI(t, url)
	loadBISchema(t, conn)
	var out strings.Builder
	out.WriteString("# PostgreSQL 15's answers to bi_catalog.sql over bi_catalog_schema.sql,\n")
	out.WriteString("# written by bi_catalog_regen.sh; TestBICatalog compares Freshet's with them.\n")
	for _, q := range queries {
		fmt.Fprintf(&out, "%s%s\n%s\n\n", biQueryMark, q.name, runBIQuery(conn, q.sql))
	}
	if err := os.WriteFile(biExpectedFile, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d answers to %s", len(queries), biExpectedFile)
}

// connectBI opens a session in UTC, so that timestamptz values print
// alike on both servers; the test closes it.
func connectBI(t *testing.T, url string) *pgconn.PgConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["timezone"] = "UTC"
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func loadBISchema(t *testing.T, conn *pgconn.PgConn) {
	t.Helper()
	data, err := os.ReadFile(biSchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range strings.Split(string(data), ";\n") {
		if stmt = strings.TrimSpace(stmt); stmt == "" {
			continue
		}
		if _, err := conn.Exec(context.Background(), stmt).ReadAll(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// runBIQuery runs sql in the simple protocol, so that every value comes
// back in the server's text format, and prints the result: a header of
// column names, one line per row with fields separated by
// |, and the row count; or the error's SQLSTATE and message.
func runBIQuery(conn *pgconn.PgConn, sql string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	results, err := conn.Exec(ctx, sql).ReadAll()
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			return fmt.Sprintf("ERROR %s: %s", pgErr.Code, pgErr.Message)
		}
		return "ERROR " + err.Error()
	}
	var b strings.Builder
	for i, res := range results {
		if i > 0 {
			b.WriteString("\n")
		}
		var cols []string
		for _, f := range res.FieldDescriptions {
			cols = append(cols, f.Name)
		}
		b.WriteString(strings.Join(cols, "|"))
		for _, row := range res.Rows {
			fields := make([]string, len(row))
			for j, v := range row {
				fields[j] = biField(v, res.FieldDescriptions[j].DataTypeOID)
			}
			b.WriteString("\n" + strings.Join(fields, "|"))
		}
		fmt.Fprintf(&b, "\n(%d rows)", len(res.Rows))
	}
	return b.String()
}

// biField prints one value: NULL as NULL, a user-object OID as
// <user oid>, and text with its backslashes, bars and line breaks
// escaped, so that a row stays on one line.
func biField(v []byte, typeOID uint32) string {
	if v == nil {
		return "NULL"
	}
	if typeOID == oidTypeOID {
		if n, err := strconv.ParseUint(string(v), 10, 32); err == nil && n >= firstUserOID {
			return "<user oid>"
		}
	}
	return strings.NewReplacer(`\`, `\\`, "|", `\|`, "\n", `\n`).Replace(string(v))
}
