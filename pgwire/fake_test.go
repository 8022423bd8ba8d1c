package pgwire

import (
	"context"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"freshet/sqlerr"
)

// fakeBackend is a Backend for tests. Its sessions understand a handful
// of statements, enough to drive every part of the protocol:
//
//	select <item>, ...            one row; an item is $N[::type],
//	                              'text'[::type], an integer, or
//	                              null::type, optionally "as name"
//	select * from generate_series(1, N)
//	select * from types           one row of every common type, one of
//	                              their special values, one of NULLs
//	select pg_sleep(N)            sleeps N seconds or until canceled
//	select 1/0, select boom, select detail
//	                              errors with code, position, detail
//	select panic()                panics
//	select fatal()                a FATAL error
//	begin, commit, rollback, set x = y, create table ..., insert ...,
//	do notice, copy t from stdin, copy t to stdout
//	copy t from stdin slowly      a COPY whose commit, after the data,
//	                              sleeps a minute or until canceled
type fakeBackend struct {
	// events, if set, receives what sessions do that tests wait for:
	// "sleeping", "sleep ended: <cause>", "closed".
	events chan string

	mu struct {
		sync.Mutex
		nextPID  uint32
		sessions map[CancelKey]*fakeSession
		// copied is the data of every COPY FROM STDIN, in order.
		copied []string
	}
}

func newFakeBackend() *fakeBackend {
	b := &fakeBackend{}
	b.mu.sessions = map[CancelKey]*fakeSession{}
	return b
}

func (b *fakeBackend) event(format string, args ...any) {
	if b.events == nil {
		return
	}
	// Tests wait for the events they care about; the others must not
	// block the session.
	select {
	case b.events <- fmt.Sprintf(format, args...):
	default:
	}
}

func (b *fakeBackend) NewSession(ctx context.Context, st Startup) (Session, error) {
	if st.Database == "nosuch" {
		return nil, sqlerr.New(sqlerr.InvalidCatalogName, "database %q does not exist", st.Database)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mu.nextPID++
	pid := b.mu.nextPID
	s := &fakeSession{
		b:      b,
		key:    CancelKey{ProcessID: pid, Secret: pid*7919 + 1},
		params: DefaultParameters(st),
		status: TxIdle,
	}
	b.mu.sessions[s.key] = s
	return s, nil
}

func (b *fakeBackend) Cancel(key CancelKey) {
	b.mu.Lock()
	s := b.mu.sessions[key]
	b.mu.Unlock()
	if s != nil {
		s.cancelRunning()
	}
}

func (b *fakeBackend) copied() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.mu.copied...)
}

var errUserCanceled = sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")

type fakeSession struct {
	b      *fakeBackend
	key    CancelKey
	params map[string]string
	status TxStatus

	mu struct {
		sync.Mutex
		// cancel cancels the running statement, if any.
		cancel context.CancelCauseFunc
	}
}

func (s *fakeSession) CancelKey() CancelKey          { return s.key }
func (s *fakeSession) Parameters() map[string]string { return maps.Clone(s.params) }

// IdleInTransactionTimeout implements IdleTimeouter from the SET value.
func (s *fakeSession) IdleInTransactionTimeout() time.Duration {
	d, _ := ParseDurationSetting("idle_in_transaction_session_timeout", s.params["idle_in_transaction_session_timeout"])
	return d
}
func (s *fakeSession) TxStatus() TxStatus { return s.status }

func (s *fakeSession) Close() {
	s.b.mu.Lock()
	delete(s.b.mu.sessions, s.key)
	s.b.mu.Unlock()
	s.b.event("closed")
}

func (s *fakeSession) cancelRunning() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.cancel != nil {
		s.mu.cancel(errUserCanceled)
	}
}

// sleep waits for d or until the statement is canceled, telling the
// backend's events "sleeping" and, when canceled, "sleep ended: <cause>".
func (s *fakeSession) sleep(ctx context.Context, d time.Duration) error {
	ctx, done := s.running(ctx)
	defer done()
	s.b.event("sleeping")
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		cause := context.Cause(ctx)
		s.b.event("sleep ended: %v", cause)
		if cause == errUserCanceled {
			return cause
		}
		return sqlerr.Wrap(cause, sqlerr.QueryCanceled)
	}
}

// running returns the context of a statement, which Cancel cancels.
func (s *fakeSession) running(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	s.mu.Lock()
	s.mu.cancel = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		s.mu.cancel = nil
		s.mu.Unlock()
		cancel(nil)
	}
}

func (s *fakeSession) Parse(ctx context.Context, sql string, paramOIDs []uint32) (Statement, error) {
	parts := splitStatements(sql)
	switch len(parts) {
	case 0:
		return &fakeStmt{kind: "empty", sess: s}, nil
	case 1:
		st, err := parseFake(parts[0], paramOIDs)
		if st != nil {
			st.sess = s
		}
		return st, err
	}
	return nil, sqlerr.New(sqlerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
}

func (s *fakeSession) Query(ctx context.Context, sql string, w QueryWriter) error {
	for _, part := range splitStatements(sql) {
		st, err := parseFake(part, nil)
		if err == nil && st.cols != nil {
			err = w.Describe(st.cols)
		}
		if err == nil {
			var tag string
			tag, _, _, err = s.run(ctx, st, nil, w, 0, 0)
			if err == nil {
				err = w.Complete(tag)
			}
		}
		if err != nil {
			if s.status == TxInBlock {
				s.status = TxFailed
			}
			return err
		}
	}
	return nil
}

func (s *fakeSession) Sync(ctx context.Context, failed bool) error {
	if failed && s.status == TxInBlock {
		s.status = TxFailed
	}
	return nil
}

// splitStatements splits sql at the semicolons outside quotes and drops
// the empty statements.
func splitStatements(sql string) []string {
	var parts []string
	quoted, start := false, 0
	for i := 0; i <= len(sql); i++ {
		if i < len(sql) && sql[i] == '\'' {
			quoted = !quoted
		}
		if i == len(sql) || (sql[i] == ';' && !quoted) {
			if p := strings.TrimSpace(sql[start:i]); p != "" {
				parts = append(parts, p)
			}
			start = i + 1
		}
	}
	return parts
}

// fakeStmt is a parsed fake statement.
type fakeStmt struct {
	sess      *fakeSession
	kind      string
	sql       string
	paramOIDs []uint32
	cols      []Column
	// items are the select list of kind "select": a parameter number
	// (1-based) or a constant.
	items []fakeItem
	// n is the N of generate_series and pg_sleep.
	n int
}

type fakeItem struct {
	param int
	value []byte
}

var fakeTypes = map[string]uint32{
	"bool": 16, "bytea": 17, "int8": 20, "int2": 21, "int4": 23, "int": 23, "text": 25, "oid": 26,
	"json": 114, "float4": 700, "float8": 701, "bpchar": 1042, "varchar": 1043, "date": 1082,
	"time": 1083, "timestamp": 1114, "timestamptz": 1184, "interval": 1186, "numeric": 1700,
	"uuid": 2950, "jsonb": 3802, "int4[]": 1007, "text[]": 1009, "void": 2278,
	"mood": 16400, "mood[]": 16401, "box": 16402, "box[]": 16403,
}

// fakeCatalogTypes are the types the fake session's catalog defines: an
// enum and its array, and a type without a binary format here and its
// array.
var fakeCatalogTypes = map[uint32]CatalogType{
	16400: {Name: "mood", TextIsBinary: true},
	16401: {Name: "_mood", Elem: 16400},
	16402: {Name: "box"},
	16403: {Name: "_box", Elem: 16402},
}

func (s *fakeSession) LookupType(oid uint32) (CatalogType, bool) {
	t, ok := fakeCatalogTypes[oid]
	return t, ok
}

// typesTable is the table "types": its columns and rows, in the text
// format PostgreSQL prints.
var typesTable = struct {
	cols []Column
	rows [][]string
}{
	cols: []Column{
		{Name: "b", TypeOID: 16}, {Name: "i2", TypeOID: 21}, {Name: "i4", TypeOID: 23},
		{Name: "i8", TypeOID: 20}, {Name: "f4", TypeOID: 700}, {Name: "f8", TypeOID: 701},
		{Name: "n", TypeOID: 1700, TypeModifier: -1}, {Name: "t", TypeOID: 25}, {Name: "vc", TypeOID: 1043, TypeModifier: 14},
		{Name: "bp", TypeOID: 1042, TypeModifier: 8}, {Name: "d", TypeOID: 1082}, {Name: "ts", TypeOID: 1114},
		{Name: "tstz", TypeOID: 1184}, {Name: "iv", TypeOID: 1186},
	},
	rows: [][]string{
		{"t", "-32768", "2147483647", "-9223372036854775808", "1.5", "-1.25e-07", "123.4500", "héllo",
			"varchar", "ab  ", "2024-02-29", "2024-02-29 12:34:56.789", "2024-02-29 12:34:56.789+00",
			"1 year 2 mons -3 days +04:05:06.5"},
		{"f", "0", "0", "0", "-Infinity", "NaN", "NaN", "", "", "", "infinity", "-infinity",
			"infinity", "00:00:00"},
	},
}

func parseFake(sql string, paramOIDs []uint32) (*fakeStmt, error) {
	st := &fakeStmt{sql: sql}
	lower := strings.ToLower(sql)
	word, _, _ := strings.Cut(lower, " ")
	switch {
	case lower == "select * from types":
		st.kind, st.cols = "rows", typesTable.cols
	case strings.HasPrefix(lower, "select * from generate_series(1, "):
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(lower, "select * from generate_series(1, "), ")"))
		if err != nil {
			return nil, sqlerr.New(sqlerr.SyntaxError, "syntax error at or near %q", sql)
		}
		st.kind, st.n = "series", n
		st.cols = []Column{{Name: "generate_series", TypeOID: 23, TypeModifier: -1}}
	case strings.HasPrefix(lower, "select pg_sleep("):
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(lower, "select pg_sleep("), ")"))
		if err != nil {
			return nil, sqlerr.New(sqlerr.SyntaxError, "syntax error at or near %q", sql)
		}
		st.kind, st.n = "sleep", n
		st.cols = []Column{{Name: "pg_sleep", TypeOID: 2278, TypeModifier: -1}}
	case lower == "select 1/0":
		st.kind = "div0"
		st.cols = []Column{{Name: "?column?", TypeOID: 23, TypeModifier: -1}}
	case lower == "select boom":
		return nil, sqlerr.New(sqlerr.UndefinedColumn, `column "boom" does not exist`).WithPosition(8)
	case lower == "select detail":
		return nil, sqlerr.New(sqlerr.DependentObjectsStillExist, "cannot drop table t because other objects depend on it").
			WithDetail("view v depends on table t").WithHint("Use DROP ... CASCADE to drop the dependent objects too.").
			WithRoutine("reportDependentObjects")
	case lower == "select panic()":
		st.kind = "panic"
		st.cols = []Column{{Name: "panic", TypeOID: 23, TypeModifier: -1}}
	case lower == "select fatal()":
		return nil, sqlerr.New(sqlerr.InternalError, "terminating connection because of a test").WithSeverity(sqlerr.SeverityFatal)
	case word == "select":
		return parseSelect(st, sql[len("select "):], paramOIDs)
	case lower == "begin", lower == "commit", lower == "rollback", lower == "do notice":
		st.kind = lower
	case word == "set":
		st.kind = "set"
	case strings.HasPrefix(lower, "create table "):
		st.kind = "create"
	case word == "insert":
		st.kind = "insert"
	case strings.HasPrefix(lower, "copy t from stdin"):
		st.kind = "copyin"
	case lower == "copy t to stdout":
		st.kind = "copyout"
	default:
		return nil, sqlerr.New(sqlerr.SyntaxError, "syntax error at or near \"%s\"", strings.Fields(sql)[0]).WithPosition(1)
	}
	return st, nil
}

// parseSelect parses a select list of parameters and constants.
func parseSelect(st *fakeStmt, list string, paramOIDs []uint32) (*fakeStmt, error) {
	st.kind = "select"
	casts := map[int]uint32{}
	for _, item := range strings.Split(list, ",") {
		expr, name, hasName := strings.Cut(strings.TrimSpace(item), " as ")
		if !hasName {
			name = "?column?"
		}
		expr, typ, hasType := strings.Cut(expr, "::")
		oid := uint32(23)
		if hasType {
			var ok bool
			if oid, ok = fakeTypes[typ]; !ok {
				return nil, sqlerr.New(sqlerr.UndefinedObject, "type %q does not exist", typ)
			}
		}
		var it fakeItem
		switch {
		case strings.HasPrefix(expr, "$"):
			n, err := strconv.Atoi(expr[1:])
			if err != nil || n < 1 {
				return nil, sqlerr.New(sqlerr.SyntaxError, "syntax error at or near %q", expr)
			}
			it.param = n
			if hasType {
				casts[n] = oid
			}
		case strings.HasPrefix(expr, "'") && strings.HasSuffix(expr, "'") && len(expr) >= 2:
			it.value = []byte(strings.ReplaceAll(expr[1:len(expr)-1], "''", "'"))
			if !hasType {
				oid = 25
			}
		case expr == "null":
		default:
			if _, err := strconv.ParseInt(expr, 10, 64); err != nil {
				return nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q does not exist", expr)
			}
			it.value = []byte(expr)
		}
		st.items = append(st.items, it)
		st.cols = append(st.cols, Column{Name: name, TypeOID: oid, TypeModifier: -1})
	}
	// Parameter types: the client's, else the cast's, else text.
	for _, it := range st.items {
		for len(st.paramOIDs) < it.param {
			st.paramOIDs = append(st.paramOIDs, 0)
		}
	}
	for i := range st.paramOIDs {
		switch {
		case i < len(paramOIDs) && paramOIDs[i] != 0:
			st.paramOIDs[i] = paramOIDs[i]
		case casts[i+1] != 0:
			st.paramOIDs[i] = casts[i+1]
		default:
			st.paramOIDs[i] = 25
		}
	}
	for i, it := range st.items {
		if it.param > 0 {
			st.cols[i].TypeOID = st.paramOIDs[it.param-1]
		}
	}
	return st, nil
}

func (st *fakeStmt) ParamOIDs() []uint32 { return st.paramOIDs }
func (st *fakeStmt) Columns() []Column   { return st.cols }
func (st *fakeStmt) Close()              {}

func (st *fakeStmt) Bind(ctx context.Context, params [][]byte) (Portal, error) {
	if st.kind == "select" {
		for i, it := range st.items {
			// A bad integer literal in a parameter is caught at Bind, as
			// PostgreSQL's input functions do.
			if it.param > 0 && st.cols[i].TypeOID == 23 && params[it.param-1] != nil {
				if _, err := strconv.ParseInt(string(params[it.param-1]), 10, 32); err != nil {
					return nil, sqlerr.New(sqlerr.InvalidTextRepresentation,
						"invalid input syntax for type integer: %q", params[it.param-1])
				}
			}
		}
	}
	return &fakePortal{st: st, params: params}, nil
}

// fakePortal is a bound fakeStmt and how far it has run.
type fakePortal struct {
	st     *fakeStmt
	params [][]byte
	pos    int
}

func (p *fakePortal) Close() {}

func (p *fakePortal) Execute(ctx context.Context, maxRows int, w Writer) (Completion, error) {
	tag, next, suspended, err := p.st.sess.run(ctx, p.st, p.params, w, p.pos, maxRows)
	p.pos = next
	return Completion{Tag: tag, Suspended: suspended}, err
}

// run runs st from row start, sending at most maxRows rows (0: all).
func (s *fakeSession) run(ctx context.Context, st *fakeStmt, params [][]byte, w Writer, start, maxRows int) (tag string, next int, suspended bool, err error) {
	if s.status == TxFailed && st.kind != "rollback" && st.kind != "commit" {
		return "", start, false, sqlerr.New(sqlerr.InFailedSQLTransaction,
			"current transaction is aborted, commands ignored until end of transaction block")
	}
	rows := func(n int, row func(i int) [][]byte) (string, int, bool, error) {
		sent := 0
		for i := start; i < n; i++ {
			if maxRows > 0 && sent == maxRows {
				return "", i, true, nil
			}
			if err := w.Row(row(i)); err != nil {
				return "", i, false, err
			}
			sent++
		}
		return fmt.Sprintf("SELECT %d", sent), n, false, nil
	}
	switch st.kind {
	case "empty":
		return "", 0, false, nil
	case "select":
		return rows(1, func(int) [][]byte {
			vals := make([][]byte, len(st.items))
			for i, it := range st.items {
				vals[i] = it.value
				if it.param > 0 {
					vals[i] = params[it.param-1]
				}
			}
			return vals
		})
	case "rows":
		return rows(len(typesTable.rows)+1, func(i int) [][]byte {
			vals := make([][]byte, len(typesTable.cols))
			if i < len(typesTable.rows) {
				for j, v := range typesTable.rows[i] {
					vals[j] = []byte(v)
				}
			}
			return vals
		})
	case "series":
		return rows(st.n, func(i int) [][]byte { return [][]byte{[]byte(strconv.Itoa(i + 1))} })
	case "sleep":
		if err := s.sleep(ctx, time.Duration(st.n)*time.Second); err != nil {
			return "", start, false, err
		}
		return rows(1, func(int) [][]byte { return [][]byte{{}} })
	case "div0":
		return "", start, false, sqlerr.New(sqlerr.DivisionByZero, "division by zero")
	case "panic":
		panic("fake session panics")
	case "begin":
		if s.status == TxInBlock {
			w.Notice(sqlerr.New("25001", "there is already a transaction in progress").WithSeverity(sqlerr.SeverityWarning))
		}
		s.status = TxInBlock
		return "BEGIN", 0, false, nil
	case "commit":
		failed := s.status == TxFailed
		s.status = TxIdle
		if failed {
			return "ROLLBACK", 0, false, nil
		}
		return "COMMIT", 0, false, nil
	case "rollback":
		s.status = TxIdle
		return "ROLLBACK", 0, false, nil
	case "set":
		f := strings.Fields(strings.NewReplacer("=", " = ", " to ", " = ").Replace(st.sql))
		if len(f) != 4 || f[2] != "=" {
			return "", 0, false, sqlerr.New(sqlerr.SyntaxError, "syntax error at or near \"set\"")
		}
		s.params[f[1]] = strings.Trim(f[3], "'")
		return "SET", 0, false, nil
	case "create":
		return "CREATE TABLE", 0, false, nil
	case "insert":
		return "INSERT 0 1", 0, false, nil
	case "do notice":
		w.Notice(sqlerr.New(sqlerr.SuccessfulCompletion, "hello from the session").WithDetail("a notice"))
		return "DO", 0, false, nil
	case "copyin":
		r, err := w.CopyIn(CopyFormat{Binary: strings.HasSuffix(strings.ToLower(st.sql), "binary"), Columns: 2})
		if err != nil {
			return "", 0, false, err
		}
		raw, err := io.ReadAll(r)
		if err != nil {
			return "", 0, false, err
		}
		// Text COPY data may end with the line \. (psql sends it).
		data, _, _ := strings.Cut(string(raw), "\\.\n")
		s.b.mu.Lock()
		s.b.mu.copied = append(s.b.mu.copied, data)
		s.b.mu.Unlock()
		if strings.HasSuffix(strings.ToLower(st.sql), " slowly") {
			// A commit that takes a minute, or until canceled.
			if err := s.sleep(ctx, time.Minute); err != nil {
				return "", 0, false, err
			}
		}
		return fmt.Sprintf("COPY %d", strings.Count(data, "\n")), 0, false, nil
	case "copyout":
		cw, err := w.CopyOut(CopyFormat{Columns: 2})
		if err != nil {
			return "", 0, false, err
		}
		for _, line := range []string{"1\tone\n", "2\ttwo\n"} {
			if _, err := io.WriteString(cw, line); err != nil {
				return "", 0, false, err
			}
		}
		return "COPY 2", 0, false, nil
	}
	return "", 0, false, sqlerr.New(sqlerr.InternalError, "fake statement kind %q", st.kind)
}

// IsSuperuser implements Superusers: the user "admin" is one.
func (b *fakeBackend) IsSuperuser(user string) bool { return user == "admin" }
