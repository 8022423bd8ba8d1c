package pgwire

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"freshet/sqlerr"
)

func connectPgx(t *testing.T, ts *testServer, params ...string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(testContext(t), ts.connString(params...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// pgError returns err's PgError, failing the test if there is none.
func pgError(t *testing.T, err error) *pgconn.PgError {
	t.Helper()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		t.Fatalf("got error %v, want a PgError", err)
	}
	return pgErr
}

// TestPgxSimpleQuery runs a multi-statement simple query through pgconn:
// each statement has its own result, in order.
func TestPgxSimpleQuery(t *testing.T) {
	ts := startServer(t, newFakeBackend())
	conn := connectPgx(t, ts)
	results, err := conn.PgConn().Exec(testContext(t), "select 1; select 'a' as x, 2 as y; create table t (a int); ;").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range results {
		var names []string
		for _, f := range r.FieldDescriptions {
			names = append(names, f.Name)
		}
		got = append(got, fmt.Sprintf("%s %v %q", r.CommandTag, names, r.Rows))
	}
	want := []string{`SELECT 1 [?column?] [["1"]]`, `SELECT 1 [x y] [["a" "2"]]`, `CREATE TABLE [] []`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// render prints a scanned value canonically, so that values read in text
// and in binary format compare equal when they mean the same.
func render(v any) string {
	switch v := v.(type) {
	case *pgtype.Numeric:
		s, _ := v.Value()
		return fmt.Sprint(s)
	case *pgtype.Date:
		if v.Valid && v.InfinityModifier == pgtype.Finite {
			return v.Time.Format("2006-01-02")
		}
		return fmt.Sprint(v.Valid, v.InfinityModifier)
	case *pgtype.Timestamp:
		if v.Valid && v.InfinityModifier == pgtype.Finite {
			return v.Time.UTC().Format(time.RFC3339Nano)
		}
		return fmt.Sprint(v.Valid, v.InfinityModifier)
	case *pgtype.Timestamptz:
		if v.Valid && v.InfinityModifier == pgtype.Finite {
			return v.Time.UTC().Format(time.RFC3339Nano)
		}
		return fmt.Sprint(v.Valid, v.InfinityModifier)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
		return fmt.Sprintf("%v", rv.Elem().Interface())
	}
	return fmt.Sprintf("%v", v)
}

// TestPgxResultFormats reads the table "types" in binary (pgx's extended
// protocol asks binary for every type it knows) and in text (the simple
// protocol); both must give the values PostgreSQL's text says.
func TestPgxResultFormats(t *testing.T) {
	ts := startServer(t, newFakeBackend())
	conn := connectPgx(t, ts)
	read := func(mode pgx.QueryExecMode) [][]string {
		rows, err := conn.Query(testContext(t), "select * from types", mode)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out [][]string
		for rows.Next() {
			dst := []any{
				new(pgtype.Bool), new(pgtype.Int2), new(pgtype.Int4), new(pgtype.Int8), new(pgtype.Float4),
				new(pgtype.Float8), new(pgtype.Numeric), new(pgtype.Text), new(pgtype.Text), new(pgtype.Text),
				new(pgtype.Date), new(pgtype.Timestamp), new(pgtype.Timestamptz), new(pgtype.Interval),
			}
			if err := rows.Scan(dst...); err != nil {
				t.Fatal(err)
			}
			var row []string
			for _, d := range dst {
				row = append(row, render(d))
			}
			out = append(out, row)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	binary := read(pgx.QueryExecModeCacheStatement)
	text := read(pgx.QueryExecModeSimpleProtocol)
	want := [][]string{
		{"{true true}", "{-32768 true}", "{2147483647 true}", "{-9223372036854775808 true}", "{1.5 true}",
			"{-1.25e-07 true}", "123.4500", "{héllo true}", "{varchar true}", "{ab   true}", "2024-02-29",
			"2024-02-29T12:34:56.789Z", "2024-02-29T12:34:56.789Z", "{14706500000 -3 14 true}"},
		{"{false true}", "{0 true}", "{0 true}", "{0 true}", "{-Inf true}", "{NaN true}", "NaN", "{ true}",
			"{ true}", "{ true}", "true infinity", "true -infinity", "true infinity", "{0 0 0 true}"},
		{"{false false}", "{0 false}", "{0 false}", "{0 false}", "{0 false}", "{0 false}", "<nil>", "{ false}",
			"{ false}", "{ false}", "false finite", "false finite", "false finite", "{0 0 0 false}"},
	}
	for i := range want {
		if i >= len(binary) || i >= len(text) {
			t.Fatalf("got %d binary and %d text rows, want %d", len(binary), len(text), len(want))
		}
		if !slices.Equal(binary[i], want[i]) {
			t.Errorf("binary row %d:\n got %q\nwant %q", i, binary[i], want[i])
		}
		if !slices.Equal(text[i], want[i]) {
			t.Errorf("text row %d:\n got %q\nwant %q", i, text[i], want[i])
		}
	}
}

// TestPgxParameterRoundTrip sends values as binary parameters and reads
// them back as binary results: pgwire turns each parameter into text for
// the session, which echoes it, and the text back into binary.
func TestPgxParameterRoundTrip(t *testing.T) {
	ts := startServer(t, newFakeBackend())
	conn := connectPgx(t, ts)
	ctx := testContext(t)
	num := func(s string) pgtype.Numeric {
		var n pgtype.Numeric
		if err := n.Scan(s); err != nil {
			t.Fatal(err)
		}
		return n
	}
	utc := func(y int, mo time.Month, d, h, mi, s, us int) time.Time {
		return time.Date(y, mo, d, h, mi, s, us*1000, time.UTC)
	}
	cases := []struct {
		typ  string
		in   any
		out  any
		want string
	}{
		{"bool", true, new(bool), "true"},
		{"int2", int16(-5), new(int16), "-5"},
		{"int4", int32(123456), new(int32), "123456"},
		{"int8", int64(math.MaxInt64), new(int64), "9223372036854775807"},
		{"float4", float32(3.25), new(float32), "3.25"},
		{"float4", float32(math.Inf(-1)), new(float32), "-Inf"},
		{"float8", 0.1, new(float64), "0.1"},
		{"float8", 1e300, new(float64), "1e+300"},
		{"float8", 123456789.125, new(float64), "1.23456789125e+08"},
		{"float8", math.NaN(), new(float64), "NaN"},
		{"numeric", num("12345.6789000"), new(pgtype.Numeric), "12345.6789000"},
		{"numeric", num("-0.001"), new(pgtype.Numeric), "-0.001"},
		{"numeric", pgtype.Numeric{NaN: true, Valid: true}, new(pgtype.Numeric), "NaN"},
		{"numeric", pgtype.Numeric{InfinityModifier: pgtype.NegativeInfinity, Valid: true}, new(pgtype.Numeric), "-Infinity"},
		{"text", "héllo 'quoted' \\ back", new(string), "héllo 'quoted' \\ back"},
		{"varchar", "", new(string), ""},
		{"bpchar", "ab  ", new(string), "ab  "},
		{"date", pgtype.Date{Time: utc(1999, 12, 31, 0, 0, 0, 0), Valid: true}, new(pgtype.Date), "1999-12-31"},
		{"date", pgtype.Date{Time: utc(-43, 3, 15, 0, 0, 0, 0), Valid: true}, new(pgtype.Date), "-0043-03-15"},
		{"date", pgtype.Date{InfinityModifier: pgtype.Infinity, Valid: true}, new(pgtype.Date), "true infinity"},
		{"timestamp", pgtype.Timestamp{Time: utc(2024, 2, 29, 12, 34, 56, 789), Valid: true}, new(pgtype.Timestamp), "2024-02-29T12:34:56.000789Z"},
		{"timestamp", pgtype.Timestamp{Time: utc(0, 1, 1, 0, 0, 0, 1), Valid: true}, new(pgtype.Timestamp), "0000-01-01T00:00:00.000001Z"},
		{"timestamp", pgtype.Timestamp{InfinityModifier: pgtype.NegativeInfinity, Valid: true}, new(pgtype.Timestamp), "true -infinity"},
		{"timestamptz", pgtype.Timestamptz{Time: time.Date(2024, 2, 29, 23, 30, 0, 0, time.FixedZone("x", 5*3600+1800)), Valid: true}, new(pgtype.Timestamptz), "2024-02-29T18:00:00Z"},
		{"timestamptz", pgtype.Timestamptz{InfinityModifier: pgtype.Infinity, Valid: true}, new(pgtype.Timestamptz), "true infinity"},
		{"interval", pgtype.Interval{Months: -14, Days: 3, Microseconds: -14706000007, Valid: true}, new(pgtype.Interval), "{-14706000007 3 -14 true}"},
		{"interval", pgtype.Interval{Microseconds: 1, Valid: true}, new(pgtype.Interval), "{1 0 0 true}"},
		{"interval", pgtype.Interval{Valid: true}, new(pgtype.Interval), "{0 0 0 true}"},
		{"time", pgtype.Time{Microseconds: 45296789012, Valid: true}, new(pgtype.Time), "{45296789012 true}"},
		{"bytea", []byte{0, 1, 2, 255}, new([]byte), "[0 1 2 255]"},
		{"uuid", [16]byte{0xa0, 0xee, 15: 0x11}, new([16]byte), "[160 238 0 0 0 0 0 0 0 0 0 0 0 0 0 17]"},
		{"int4[]", []int32{1, -2, 3}, new([]int32), "[1 -2 3]"},
		{"text[]", []string{"a", "b c", "", `"q"`}, new([]string), `[a b c  "q"]`},
		{"jsonb", map[string]any{"a": 1.5}, new(map[string]any), "map[a:1.5]"},
		{"json", []int{1, 2}, new([]int), "[1 2]"},
	}
	for _, c := range cases {
		err := conn.QueryRow(ctx, "select $1::"+c.typ, c.in).Scan(c.out)
		if err != nil {
			t.Errorf("%s %v: %v", c.typ, c.in, err)
			continue
		}
		got := render(c.out)
		if got != c.want {
			t.Errorf("%s %v: got %s, want %s", c.typ, c.in, got, c.want)
		}
	}
}

// TestPgxPreparedStatements uses named statements through pgconn:
// Prepare reports the inferred parameter types and the columns,
// ExecPrepared runs with text or binary formats, a name cannot be
// prepared twice, and Deallocate frees it.
func TestPgxPreparedStatements(t *testing.T) {
	ts := startServer(t, newFakeBackend())
	conn := connectPgx(t, ts).PgConn()
	ctx := testContext(t)
	sd, err := conn.Prepare(ctx, "s1", "select $1::int8 as a, $2 as b", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sd.ParamOIDs, []uint32{20, 25}) || len(sd.Fields) != 2 || sd.Fields[0].Name != "a" || sd.Fields[1].DataTypeOID != 25 {
		t.Fatalf("got params %v fields %+v", sd.ParamOIDs, sd.Fields)
	}
	res := conn.ExecPrepared(ctx, "s1", [][]byte{[]byte("42"), []byte("x")}, nil, []int16{1, 0}).Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if want := [][]byte{{0, 0, 0, 0, 0, 0, 0, 42}, []byte("x")}; len(res.Rows) != 1 || !slices.EqualFunc(res.Rows[0], want, slices.Equal) {
		t.Errorf("got rows %q, want %q", res.Rows, want)
	}
	_, err = conn.Prepare(ctx, "s1", "select 1", nil)
	if e := pgError(t, err); e.Code != sqlerr.DuplicatePreparedStatement {
		t.Errorf("second Prepare: got %v", e)
	}
	if err := conn.Deallocate(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	res = conn.ExecPrepared(ctx, "s1", [][]byte{[]byte("42"), []byte("x")}, nil, nil).Read()
	if e := pgError(t, res.Err); e.Code != sqlerr.InvalidSQLStatementName || e.Message != `prepared statement "s1" does not exist` {
		t.Errorf("after Deallocate: got %v", e)
	}
	// The unnamed statement, with parameter types given by the client.
	res = conn.ExecParams(ctx, "select $1", [][]byte{{0, 7}}, []uint32{21}, []int16{1}, []int16{0}).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "7" {
		t.Errorf("ExecParams: got %q, %v", res.Rows, res.Err)
	}
}

// TestPgxLargeResult streams a result much larger than the output
// buffer, in binary and in text.
func TestPgxLargeResult(t *testing.T) {
	ts := startServer(t, newFakeBackend())
	conn := connectPgx(t, ts)
	const n = 50000
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		rows, err := conn.Query(testContext(t), fmt.Sprintf("select * from generate_series(1, %d)", n), mode)
		if err != nil {
			t.Fatal(err)
		}
		sum, count := 0, 0
		for rows.Next() {
			var v int32
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			sum += int(v)
			count++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if count != n || sum != n*(n+1)/2 {
			t.Errorf("mode %v: got %d rows summing to %d", mode, count, sum)
		}
	}
}

// TestRowLimitsFrontend fetches a portal a few rows at a time with a raw
// pgproto3 frontend: PortalSuspended after each full batch, the command
// tag after the last.
func TestRowLimitsFrontend(t *testing.T) {
	ts := startServer(t, newFakeBackend())
	conn := connectPgx(t, ts).PgConn()
	fe := conn.Frontend()
	conn.Conn().SetDeadline(time.Now().Add(20 * time.Second))
	fe.Send(&pgproto3.Parse{Query: "select * from generate_series(1, 10)"})
	fe.Send(&pgproto3.Bind{ResultFormatCodes: []int16{1}})
	for range 4 {
		fe.Send(&pgproto3.Execute{MaxRows: 3})
	}
	fe.Send(&pgproto3.Sync{})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			got = append(got, fmt.Sprint(pgtypeInt4(m.Values[0])))
		case *pgproto3.PortalSuspended:
			got = append(got, "suspended")
		case *pgproto3.CommandComplete:
			got = append(got, string(m.CommandTag))
		case *pgproto3.ErrorResponse:
			t.Fatalf("error: %s", m.Message)
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	want := []string{"1", "2", "3", "suspended", "4", "5", "6", "suspended", "7", "8", "9", "suspended", "10", "SELECT 1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func pgtypeInt4(b []byte) int32 {
	return int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
}

// TestPgxCancelRequest cancels a running query with a CancelRequest on a
// new connection: the query fails with 57014 and the connection goes on.
func TestPgxCancelRequest(t *testing.T) {
	b := newFakeBackend()
	b.events = make(chan string, 64)
	ts := startServer(t, b)
	conn := connectPgx(t, ts)
	ctx := testContext(t)
	go func() {
		waitEvent(t, b.events, "sleeping")
		if err := conn.PgConn().CancelRequest(ctx); err != nil {
			t.Errorf("CancelRequest: %v", err)
		}
	}()
	_, err := conn.Exec(ctx, "select pg_sleep(60)")
	if e := pgError(t, err); e.Code != "57014" || e.Message != "canceling statement due to user request" {
		t.Errorf("got %v", e)
	}
	var one int32
	if err := conn.QueryRow(ctx, "select 1").Scan(&one); err != nil || one != 1 {
		t.Errorf("after cancel: %v, %v", one, err)
	}
	// A CancelRequest with a wrong key is ignored.
	b.Cancel(CancelKey{ProcessID: 99, Secret: 1})
}

// TestPgxCopy runs COPY FROM STDIN and COPY TO STDOUT through pgconn,
// a COPY of megabytes, and a COPY that the client aborts.
func TestPgxCopy(t *testing.T) {
	b := newFakeBackend()
	ts := startServer(t, b)
	conn := connectPgx(t, ts).PgConn()
	ctx := testContext(t)
	data := strings.Repeat("1\tone\n2\ttwo\n", 20000)
	tag, err := conn.CopyFrom(ctx, strings.NewReader(data), "copy t from stdin")
	if err != nil {
		t.Fatal(err)
	}
	if tag.String() != "COPY 40000" {
		t.Errorf("got tag %q", tag)
	}
	if got := b.copied(); len(got) != 1 || got[0] != data {
		t.Errorf("the session got %d copies", len(got))
	}

	// Megabytes of lines no two alike, in pgx's CopyData messages of 64
	// kB, whose bodies the server reads into buffers it recycles: each
	// byte arrives once, where it was sent.
	var unique strings.Builder
	for i := range 150000 {
		fmt.Fprintf(&unique, "%d\tv%d\n", i, i*7919%100003)
	}
	if _, err := conn.CopyFrom(ctx, strings.NewReader(unique.String()), "copy t from stdin"); err != nil {
		t.Fatal(err)
	}
	if got := b.copied(); len(got) != 2 || got[1] != unique.String() {
		t.Errorf("the session's second copy differs from the %d bytes sent", unique.Len())
	}

	_, err = conn.CopyFrom(ctx, &failingReader{data: "1\tone\n"}, "copy t from stdin")
	if e := pgError(t, err); e.Code != "57014" || !strings.HasPrefix(e.Message, "COPY from stdin failed: ") {
		t.Errorf("aborted COPY: got %v", e)
	}

	var out strings.Builder
	tag, err = conn.CopyTo(ctx, &out, "copy t to stdout")
	if err != nil {
		t.Fatal(err)
	}
	if tag.String() != "COPY 2" || out.String() != "1\tone\n2\ttwo\n" {
		t.Errorf("COPY TO STDOUT: got %q, %q", tag, out.String())
	}
	if res := conn.ExecParams(ctx, "select 1", nil, nil, nil, nil).Read(); res.Err != nil {
		t.Errorf("after COPY: %v", res.Err)
	}
}

// failingReader returns its data, then an error.
type failingReader struct{ data string }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestPgxBatchError sends a batch whose second query fails: the first
// result arrives, the second is the error, the rest is skipped up to
// Sync, and the connection goes on.
func TestPgxBatchError(t *testing.T) {
	ts := startServer(t, newFakeBackend())
	conn := connectPgx(t, ts)
	ctx := testContext(t)
	batch := &pgx.Batch{}
	batch.Queue("select 1")
	batch.Queue("select 1/0")
	batch.Queue("select 2")
	br := conn.SendBatch(ctx, batch)
	var v int32
	if err := br.QueryRow().Scan(&v); err != nil || v != 1 {
		t.Errorf("first: %v, %v", v, err)
	}
	if e := pgError(t, br.QueryRow().Scan(&v)); e.Code != "22012" {
		t.Errorf("second: %v", e)
	}
	if err := br.QueryRow().Scan(&v); err == nil {
		t.Error("third query of a failed batch succeeded")
	}
	br.Close()
	if err := conn.QueryRow(ctx, "select 3").Scan(&v); err != nil || v != 3 {
		t.Errorf("after the batch: %v, %v", v, err)
	}
}

// TestPgxErrors checks the fields of errors as pgx sees them: code,
// position, detail, hint, routine; a panic as XX000; a FATAL error
// closing the connection; a refused startup.
func TestPgxErrors(t *testing.T) {
	ts := startServer(t, newFakeBackend())
	conn := connectPgx(t, ts)
	ctx := testContext(t)

	_, err := conn.Exec(ctx, "select boom")
	if e := pgError(t, err); e.Code != "42703" || e.Position != 8 || e.Severity != "ERROR" {
		t.Errorf("got %+v", e)
	}
	_, err = conn.Exec(ctx, "select detail")
	if e := pgError(t, err); e.Code != "2BP01" || e.Detail != "view v depends on table t" ||
		e.Hint != "Use DROP ... CASCADE to drop the dependent objects too." || e.Routine != "reportDependentObjects" {
		t.Errorf("got %+v", e)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		_, err = conn.Exec(ctx, "select panic()", mode)
		if e := pgError(t, err); e.Code != "XX000" {
			t.Errorf("panic, mode %v: got %+v", mode, e)
		}
	}
	var v int32
	if err := conn.QueryRow(ctx, "select 5").Scan(&v); err != nil || v != 5 {
		t.Errorf("after the panics: %v, %v", v, err)
	}

	_, err = conn.Exec(ctx, "select fatal()")
	if e := pgError(t, err); e.Severity != "FATAL" {
		t.Errorf("got %+v", e)
	}
	if _, err := conn.Exec(ctx, "select 1"); err == nil {
		t.Error("connection still open after a FATAL error")
	}

	_, err = pgx.Connect(ctx, strings.Replace(ts.connString(), "/freshet?", "/nosuch?", 1))
	if e := pgError(t, err); e.Code != "3D000" || e.Severity != "FATAL" || e.Message != `database "nosuch" does not exist` {
		t.Errorf("connect to nosuch: got %+v", e)
	}
}

// TestPgxSessionState checks what the session reports: ParameterStatus
// at startup and after SET, notices, and the transaction status.
func TestPgxSessionState(t *testing.T) {
	ts := startServer(t, newFakeBackend())
	var notices []string
	cfg, err := pgconn.ParseConfig(ts.connString("application_name=tester"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		notices = append(notices, n.Severity+" "+n.Message)
	}
	ctx := testContext(t)
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for name, want := range map[string]string{
		"server_version": ServerVersion, "client_encoding": "UTF8", "DateStyle": "ISO, MDY",
		"integer_datetimes": "on", "standard_conforming_strings": "on", "TimeZone": "UTC",
		"application_name": "tester", "session_authorization": "u",
	} {
		if got := conn.ParameterStatus(name); got != want {
			t.Errorf("ParameterStatus(%s) = %q, want %q", name, got, want)
		}
	}
	if conn.PID() == 0 {
		t.Error("no BackendKeyData")
	}
	exec := func(sql string) error {
		_, err := conn.Exec(ctx, sql).ReadAll()
		return err
	}
	if err := exec("set application_name = 'renamed'; do notice"); err != nil {
		t.Fatal(err)
	}
	if got := conn.ParameterStatus("application_name"); got != "renamed" {
		t.Errorf("after SET: application_name %q", got)
	}
	if want := []string{"NOTICE hello from the session"}; !slices.Equal(notices, want) {
		t.Errorf("notices %q, want %q", notices, want)
	}
	for _, step := range []struct {
		sql    string
		status byte
	}{{"begin", 'T'}, {"select 1", 'T'}, {"select 1/0", 'E'}, {"select 1", 'E'}, {"rollback", 'I'}} {
		exec(step.sql)
		if got := conn.TxStatus(); got != step.status {
			t.Errorf("after %q: status %c, want %c", step.sql, got, step.status)
		}
	}
}

// TestPgxSSLPrefer connects with sslmode=prefer: the server answers the
// SSLRequest with N and the client goes on in the clear.
func TestPgxSSLPrefer(t *testing.T) {
	ts := startServer(t, newFakeBackend())
	conn, err := pgx.Connect(testContext(t), strings.Replace(ts.connString(), "sslmode=disable", "sslmode=prefer", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var v int32
	if err := conn.QueryRow(testContext(t), "select 7").Scan(&v); err != nil || v != 7 {
		t.Errorf("got %v, %v", v, err)
	}
}
