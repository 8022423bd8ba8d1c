package coord

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/compute"
	"freshet/expr"
	"freshet/internal/prefault"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// Session is one connection's state: its database, settings and
// transaction, and the query it is running.
type Session struct {
	backend  *Backend
	engine   *Engine
	key      pgwire.CancelKey
	database string
	// tempSchema is the session's temporary schema once it has one
	// (temp.go).
	tempSchema string
	startup    pgwire.Startup
	settings   sessionSettings

	tx transaction

	activity activity
	// seqs are the values currval and lastval give.
	seqs sessionSequences
	// widths are set only in the session that plans a stored
	// materialized view again (Rebuild): its catalog.Object.Widths.
	widths map[uint64]int
	// cursors are the session's open cursors, by name.
	cursors map[string]*cursor
	// sqlPrepared are the statements of PREPARE, by name.
	sqlPrepared map[string]*sqlPrepared

	// running cancels the statement being executed, for CancelRequest.
	runningMu sync.Mutex
	running   context.CancelFunc
	// terminated is canceled by pg_terminate_backend: pgwire then ends
	// the connection (pgwire.Terminator). terminateWith ends it with a
	// FATAL error of its own as the cause, which the client receives.
	terminated    context.Context
	terminate     func()
	terminateWith func(cause error)
}

// transaction is the state of an explicit transaction block.
type transaction struct {
	status pgwire.TxStatus
	// readTime is the time every read of the block sees, fixed at its
	// first read.
	readTime uint64
	// now is now() in the block, fixed with readTime.
	now     uint64
	hasRead bool
	// release gives the block's read time back to compaction.
	release func()
	// writes are buffered until COMMIT, which applies them at one time.
	writes []TableWrite
	// keys is what writes do to unique keys, to check each statement
	// against them (Engine.checkBlockWrite).
	keys blockKeys
	// settings is what the block did to the session's settings.
	settings txSettings
	// implicit marks the transaction of a multi-statement Query message.
	implicit bool
	// read and written are the collections the block's writes read and
	// the tables they write: a commit fails if another write reached what
	// the block read after its read time, and reading what the block
	// itself wrote is refused (its writes are not visible before COMMIT).
	read, written map[uint64]bool
	// names are the names of the tables the block writes, for errors.
	names map[uint64]string
	// savepoints are the block's savepoints, oldest first.
	savepoints []savepoint
}

// commitWrites applies a block's buffered writes at one time, unless a
// write by someone else reached what the block read after its read time.
func (s *Session) commitWrites(ctx context.Context) error {
	if len(s.tx.writes) == 0 {
		return nil
	}
	e := s.engine
	if err := e.dmlMu.acquire(ctx); err != nil {
		return err
	}
	defer e.dmlMu.Unlock()
	var read []uint64
	for id := range s.tx.read {
		read = append(read, id)
	}
	if e.WrittenSince(read, s.tx.readTime) {
		return sqlerr.New(sqlerr.SerializationFailure, "could not serialize access due to concurrent update")
	}
	_, err := e.Write(ctx, s.tx.writes)
	return namedTableError(err, s.tx.names)
}

// checkOwnWrites refuses, in a transaction block, a read of a table the
// block has written: those writes are not visible until COMMIT.
func (s *Session) checkOwnWrites(plan expr.Relation) error {
	if s.tx.status != pgwire.TxInBlock {
		return nil
	}
	for _, id := range dependencies(plan) {
		if s.tx.written[id] {
			return sqlerr.New(sqlerr.FeatureNotSupported, "reading a table written earlier in the same transaction block is not supported")
		}
	}
	return nil
}

func newSession(b *Backend, key pgwire.CancelKey, s pgwire.Startup) *Session {
	sess := &Session{backend: b, engine: b.engine, key: key, database: s.Database, startup: s,
		settings: defaultSettings(s), tx: transaction{status: pgwire.TxIdle}}
	sess.activity.backendStart = b.engine.Clock()
	sess.activity.state = "idle"
	sess.activity.appName = sess.settings["application_name"]
	var end context.CancelCauseFunc
	sess.terminated, end = context.WithCancelCause(context.Background())
	sess.terminate = func() { sess.terminateWith(nil) }
	sess.terminateWith = func(cause error) {
		end(cause)
		sess.cancelRunning()
	}
	return sess
}

// Terminated implements pgwire.Terminator.
func (s *Session) Terminated() context.Context { return s.terminated }

// CancelKey implements pgwire.Session.
func (s *Session) CancelKey() pgwire.CancelKey { return s.key }

// Parameters implements pgwire.Session.
func (s *Session) Parameters() map[string]string { return s.settings.reported() }

// TxStatus implements pgwire.Session.
func (s *Session) TxStatus() pgwire.TxStatus { return s.tx.status }

// Close implements pgwire.Session.
func (s *Session) Close() {
	s.endTx()
	if err := s.dropTemp(context.Background()); err != nil {
		s.engine.log.Warn("the session's temporary objects could not be dropped; the next start drops them", "schema", s.tempSchema, "error", err)
	}
	s.backend.forget(s.key)
}

// endTx ends the transaction block, if any, releasing its read hold.
func (s *Session) endTx() {
	if s.tx.release != nil {
		s.tx.release()
	}
	s.endSettings(s.tx.settings)
	s.endCursors()
	s.tx = transaction{status: pgwire.TxIdle}
}

func (s *Session) cancelRunning() {
	s.runningMu.Lock()
	defer s.runningMu.Unlock()
	if s.running != nil {
		s.running()
	}
}

// run executes f with a context that a CancelRequest cancels.
// It runs past the session's statement_timeout only to end with 57014.
func (s *Session) run(ctx context.Context, f func(ctx context.Context) error) error {
	ctx, stop := s.withStatementTimeout(ctx)
	defer stop()
	ctx = s.withLockTimeout(ctx)
	s.activity.mu.Lock()
	ctx = withStatementText(ctx, s.activity.query)
	s.activity.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	s.runningMu.Lock()
	s.running = cancel
	s.runningMu.Unlock()
	defer func() {
		s.runningMu.Lock()
		s.running = nil
		s.runningMu.Unlock()
		cancel()
	}()
	return timedOut(ctx, f(ctx))
}

// Query implements pgwire.Session: every statement of the message runs in
// turn; outside a transaction block each is its own transaction.
func (s *Session) Query(ctx context.Context, sql string, w pgwire.QueryWriter) error {
	s.beginStatement(sql)
	defer s.endStatement()
	parsed, err := planner.Parse(sql)
	if err != nil {
		s.failTx()
		return err
	}
	implicit := s.tx.status == pgwire.TxIdle && len(parsed) > 1
	if implicit {
		// A multi-statement message is one implicit transaction.
		s.tx = transaction{status: pgwire.TxInBlock, implicit: true}
	}
	for _, p := range parsed {
		// Each statement is planned after the previous one ran, so it
		// sees that one's catalog changes.
		var reads []planner.Read
		st, err := planner.PlanOne(s.planningCatalog(nil, &reads), p)
		if err == nil && s.tx.status == pgwire.TxFailed && !endsTx(st) {
			err = sqlerr.New(sqlerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
		}
		var res result
		if err == nil {
			start := time.Now()
			err = s.run(ctx, func(ctx context.Context) error {
				var err error
				res, err = s.execute(ctx, st, reads, w)
				if err == nil && res.stream != nil {
					err = sendStream(ctx, w, &res)
				}
				return err
			})
			s.engine.metrics.observeStatement(st.Tag(), time.Since(start))
		}
		if err != nil {
			if s.tx.implicit {
				s.endTx()
			} else {
				s.failTx()
			}
			return err
		}
		if err := writeResult(w, res); err != nil {
			return err
		}
	}
	if s.tx.implicit && s.tx.status == pgwire.TxInBlock {
		err := s.commitWrites(ctx)
		s.tx.settings.committed = err == nil
		s.endTx()
		if err != nil {
			return err
		}
	}
	return nil
}

// endsTx reports whether st ends a transaction block.
func endsTx(st planner.Statement) bool {
	switch st.(type) {
	case *planner.Commit, *planner.Rollback, *planner.RollbackToSavepoint:
		return true
	}
	return false
}

func writeResult(w pgwire.QueryWriter, res result) error {
	if res.columns != nil {
		if err := w.Describe(res.columns); err != nil {
			return err
		}
		for _, row := range res.rows {
			if err := w.Row(row); err != nil {
				return err
			}
		}
	}
	return w.Complete(res.tag)
}

// failTx marks an open transaction block failed.
func (s *Session) failTx() {
	if s.tx.status == pgwire.TxInBlock {
		s.tx.status = pgwire.TxFailed
	}
}

// Sync implements pgwire.Session.
func (s *Session) Sync(ctx context.Context, failed bool) error {
	if failed {
		s.failTx()
	}
	return nil
}

// result is a statement's outcome: rows (text format) and a tag.
type result struct {
	columns []pgwire.Column
	rows    [][][]byte
	tag     string
	// stream, when set, produces the rows instead of rows: it passes
	// each to emit as it comes and returns how many it passed. It runs
	// under the statement's context, right after the statement, and its
	// tag is SELECT and that count.
	stream func(ctx context.Context, emit func([][]byte) error) (int64, error)
}

// sendStream sends a streamed result's description and rows, leaving res
// with its tag to complete.
func sendStream(ctx context.Context, w pgwire.QueryWriter, res *result) error {
	if err := w.Describe(res.columns); err != nil {
		return err
	}
	n, err := res.stream(ctx, w.Row)
	res.columns, res.stream, res.tag = nil, nil, fmt.Sprintf("SELECT %d", n)
	return err
}

// execute runs st, which read reads as it was planned, once the session
// is found to hold the privileges it needs.
func (s *Session) execute(ctx context.Context, st planner.Statement, reads []planner.Read, w pgwire.Writer) (result, error) {
	if err := s.authorize(st, reads); err != nil {
		return result{}, err
	}
	switch st := st.(type) {
	case *planner.Select:
		return s.selectRows(ctx, st)
	case *planner.Explain:
		return s.explain(ctx, st)
	case *planner.CreateTable:
		return s.createTable(ctx, st, w)
	case *planner.CreateView:
		return s.createView(ctx, st, w)
	case *planner.CreateIndex:
		return s.createIndex(ctx, st, w)
	case *planner.Insert:
		if st.OnConflict != nil {
			return s.upsert(ctx, st)
		}
		n, res, err := s.writeRows(ctx, st.Table, st.Plan, 0, st.Returning)
		res.tag = fmt.Sprintf("INSERT 0 %d", n)
		return res, err
	case *planner.Update:
		n, res, err := s.writeRows(ctx, st.Table, st.Plan, len(st.Table.Columns), st.Returning)
		res.tag = fmt.Sprintf("UPDATE %d", n)
		return res, err
	case *planner.Delete:
		n, res, err := s.writeRows(ctx, st.Table, st.Plan, -1, st.Returning)
		res.tag = fmt.Sprintf("DELETE %d", n)
		return res, err
	case *planner.Merge:
		return s.merge(ctx, st)
	case *planner.Copy:
		return s.copyFrom(ctx, st, w)
	case *planner.CopyTo:
		return s.copyTo(ctx, st, w)
	case *planner.Drop:
		return s.drop(ctx, st, w)
	case *planner.Rename:
		return s.rename(ctx, st, w)
	case *planner.AlterTable:
		return s.alterTable(ctx, st, w)
	case *planner.Comment:
		return s.comment(ctx, st)
	case *planner.CreateRole:
		return s.createRole(ctx, st)
	case *planner.AlterRole:
		return s.alterRole(ctx, st)
	case *planner.DropRole:
		return s.dropRole(ctx, st)
	case *planner.Grant:
		return s.grant(ctx, st)
	case *planner.CreateSequence:
		return s.createSequence(ctx, st, w)
	case *planner.CreateEnum:
		return s.createEnum(ctx, st)
	case *planner.AlterEnum:
		return s.alterEnum(ctx, st, w)
	case *planner.DropType:
		return s.dropType(ctx, st, w)
	case *planner.CreateSchema:
		return s.createSchema(ctx, st, w)
	case *planner.DropSchema:
		return s.dropSchema(ctx, st, w)
	case *planner.Prepare:
		return s.prepare(st)
	case *planner.Execute:
		return s.executePrepared(ctx, st, w)
	case *planner.Deallocate:
		return s.deallocate(st)
	case *planner.DeclareCursor:
		return s.declareCursor(ctx, st)
	case *planner.Fetch:
		return s.fetch(ctx, st)
	case *planner.ExplainView:
		return s.explainView(ctx, st)
	case *planner.Subscribe:
		if st.Cursor != "" {
			return s.declareSubscribe(ctx, st)
		}
		return s.subscribeCopy(ctx, st, w)
	case *planner.CloseCursor:
		return s.closeCursor(st)
	case *planner.Savepoint:
		return s.savepoint(st)
	case *planner.ReleaseSavepoint:
		return s.releaseSavepoint(st)
	case *planner.RollbackToSavepoint:
		return s.rollbackToSavepoint(st)
	case *planner.CreateDatabase:
		err := s.engine.CreateDatabase(ctx, st.Name)
		if err != nil && st.IfNotExists && sqlerr.Code(err) == sqlerr.DuplicateDatabase {
			w.Notice(sqlerr.New(sqlerr.DuplicateDatabase, "database %q already exists, skipping", st.Name).WithSeverity(sqlerr.SeverityNotice))
			err = nil
		}
		return result{tag: "CREATE DATABASE"}, err
	case *planner.DropDatabase:
		return s.dropDatabase(ctx, st, w)
	case *planner.Set:
		if st.Name == faultSetting {
			return result{tag: "SET"}, s.injectFault(ctx, st.Value)
		}
		return s.set(st, w)
	case *planner.Reset:
		return s.reset(st, w)
	case *planner.Show:
		return s.show(st)
	case *planner.Truncate:
		return s.truncate(ctx, st)
	case *planner.CreateTableAs:
		return s.createTableAs(ctx, st, w)
	case *planner.Noop:
		if st.Notice != "" {
			w.Notice(sqlerr.New(sqlerr.SuccessfulCompletion, "%s", st.Notice).WithSeverity(sqlerr.SeverityNotice))
		}
		return result{tag: st.Command}, nil
	case *planner.Discard:
		return s.discard(ctx, st)
	case *planner.Begin:
		if s.tx.implicit {
			// BEGIN in a multi-statement message makes its implicit
			// transaction an explicit block.
			s.tx.implicit = false
			return result{tag: "BEGIN"}, nil
		}
		if s.tx.status != pgwire.TxIdle {
			w.Notice(sqlerr.New(sqlerr.ActiveSQLTransaction, "there is already a transaction in progress").WithSeverity(sqlerr.SeverityWarning))
			return result{tag: "BEGIN"}, nil
		}
		s.tx = transaction{status: pgwire.TxInBlock}
		return result{tag: "BEGIN"}, nil
	case *planner.Commit:
		tag := "COMMIT"
		if s.tx.status == pgwire.TxFailed {
			tag = "ROLLBACK"
		} else if err := s.commitWrites(ctx); err != nil {
			s.endTx()
			return result{}, err
		}
		if s.tx.status == pgwire.TxIdle {
			w.Notice(sqlerr.New(sqlerr.NoActiveSQLTransaction, "there is no transaction in progress").WithSeverity(sqlerr.SeverityWarning))
		}
		s.tx.settings.committed = tag == "COMMIT"
		s.endTx()
		return result{tag: tag}, nil
	case *planner.Rollback:
		if s.tx.status == pgwire.TxIdle {
			w.Notice(sqlerr.New(sqlerr.NoActiveSQLTransaction, "there is no transaction in progress").WithSeverity(sqlerr.SeverityWarning))
		}
		s.endTx()
		return result{tag: "ROLLBACK"}, nil
	}
	return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "%s is not supported", st.Tag())
}

// readTime returns the time a read sees, held against compaction until
// release is called: in a transaction block, the block's first read time,
// held until the block ends (release is then a no-op); otherwise every
// acknowledged write, held for the statement. now is the value of now()
// for the statement, in milliseconds since the Unix epoch: the clock when
// the read time was taken (fixed for a block, as in PostgreSQL), and
// never before the read time. The data at the read time is the data at
// every instant up to the next write, so the two name one state.
func (s *Session) readTime() (ts, now uint64, release func()) {
	if s.tx.status == pgwire.TxInBlock {
		if !s.tx.hasRead {
			s.tx.readTime, s.tx.release = s.engine.AcquireRead()
			s.tx.now = max(s.tx.readTime, s.engine.Clock())
			s.tx.hasRead = true
		}
		return s.tx.readTime, s.tx.now, func() {}
	}
	ts, release = s.engine.AcquireRead()
	return ts, max(ts, s.engine.Clock()), release
}

// withNow returns plan with now() replaced by the instant now, in
// milliseconds since the Unix epoch.
func withNow(plan expr.Relation, now uint64) expr.Relation {
	return expr.ReplaceNow(plan, repr.NewTimestampTZ(repr.TimestampFromTime(time.UnixMilli(int64(now)))))
}

// selectRows runs a query. Its rows are produced as the result is sent
// (result.stream): a query that only maps, filters and projects one
// arrangement and has no ORDER BY sends each row as it is read
// (Engine.StreamRows) and stops reading at its LIMIT; any other is read
// whole, finished (ordered, limited) and then sent.
func (s *Session) selectRows(ctx context.Context, st *planner.Select) (result, error) {
	plan, apply, err := s.bindSelect(ctx, st)
	if err != nil {
		return result{}, err
	}
	cols, zone, f := st.Columns, s.zone(), st.Finishing
	stream := func(ctx context.Context, emit func([][]byte) error) (int64, error) {
		ts, now, release := s.readTime()
		defer release()
		plan := withNow(withRandomKeys(plan), now)
		var n int64
		if len(f.OrderBy) == 0 && apply == nil {
			if f.Limit == 0 {
				return 0, nil
			}
			skip := f.Offset
			streamed, err := s.engine.StreamRows(ctx, plan, ts, func(r []repr.Datum) error {
				if skip > 0 {
					skip--
					return nil
				}
				row := make([]repr.Datum, len(f.Project))
				for j, c := range f.Project {
					row[j] = r[c]
				}
				if err := emit(textRow(row, cols, zone)); err != nil {
					return err
				}
				if n++; f.Limit >= 0 && n >= f.Limit {
					return errStopRows
				}
				return nil
			})
			if streamed {
				return n, err
			}
		}
		rows, err := s.engine.Read(ctx, limited(plan, f), ts)
		if err != nil {
			return 0, err
		}
		if apply != nil {
			apply()
		}
		for _, r := range f.Apply(rows) {
			if err := emit(textRow(r, cols, zone)); err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	}
	return result{columns: describe(st.Columns), stream: stream}, nil
}

// bindSelect checks and binds a query's plan to the session, and writes
// what the catalog owes the system tables it reads. apply, when not nil,
// makes the query's set_config() calls take effect; it is called after
// the read.
func (s *Session) bindSelect(ctx context.Context, st *planner.Select) (expr.Relation, func(), error) {
	if err := s.checkOwnWrites(st.Plan); err != nil {
		return nil, nil, err
	}
	plan, apply, err := s.bindSession(st.Plan)
	if err != nil {
		return nil, nil, err
	}
	if err := s.engine.flushCatalogFor(ctx, plan); err != nil {
		return nil, nil, err
	}
	return plan, apply, nil
}

// selectDatums runs a query and returns its rows, finished (ordered,
// limited, projected).
func (s *Session) selectDatums(ctx context.Context, st *planner.Select) ([][]repr.Datum, error) {
	plan, apply, err := s.bindSelect(ctx, st)
	if err != nil {
		return nil, err
	}
	ts, now, release := s.readTime()
	defer release()
	rows, err := s.engine.Read(ctx, limited(withNow(withRandomKeys(plan), now), st.Finishing), ts)
	if err != nil {
		return nil, err
	}
	if apply != nil {
		apply()
	}
	return st.Finishing.Apply(rows), nil
}

// limited returns plan for a read that f finishes: when f orders and
// limits, only the rows it can return, the first OFFSET + LIMIT in its
// order (a TopK, which a dataflow keeps without sorting the rest); the
// finishing then orders those, and skips and limits as before. TopK and
// the finishing order alike, ties by the whole row, so the rows
// returned are the same: a read of the ten greatest of a million rows
// no longer decodes and sorts the million.
func limited(plan expr.Relation, f planner.Finishing) expr.Relation {
	if len(f.OrderBy) == 0 || f.Limit < 0 || f.Offset < 0 || f.Offset > math.MaxInt64-f.Limit {
		return plan
	}
	return expr.TopK{Input: plan, Order: f.OrderBy, Limit: f.Offset + f.Limit}
}

func describe(cols []planner.Column) []pgwire.Column {
	out := make([]pgwire.Column, len(cols))
	for i, c := range cols {
		out[i] = pgwire.Column{Name: c.Name, TypeOID: c.Type.OID(), TypeSize: c.Type.Typlen(), TypeModifier: c.Type.Typmod()}
		if c.Source.Relation != 0 {
			out[i].TableOID = uint32(relationOID(uint64(c.Source.Relation)))
			out[i].ColumnNumber = int16(c.Source.Column)
		}
	}
	return out
}

// textRow prints a result row in the text format, timestamps with time
// zone in the session's zone z.
func textRow(r []repr.Datum, cols []planner.Column, z *repr.Zone) [][]byte {
	vals := make([][]byte, len(r))
	for i, d := range r {
		if d.IsNull() {
			continue
		}
		if i < len(cols) {
			if c, err := repr.Cast(d, cols[i].Type); err == nil {
				d = c
			}
		}
		// Non-nil even when empty: nil means NULL to pgwire.
		vals[i] = repr.AppendTextIn([]byte{}, d, z)
	}
	return vals
}

func (s *Session) explain(ctx context.Context, st *planner.Explain) (result, error) {
	var plan expr.Relation
	switch in := st.Inner.(type) {
	case *planner.Select:
		plan = in.Plan
	case *planner.CreateView:
		plan = in.Plan
	default:
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "EXPLAIN %s is not supported", st.Inner.Tag())
	}
	lines := strings.Split(strings.TrimRight(expr.Explain(plan), "\n"), "\n")
	// The arrangements the dataflow would import: a materialized view's
	// joins read inputs from indexes (compute.Indexes), a query's
	// arrange their inputs themselves.
	deps := dependencies(plan)
	if cv, ok := st.Inner.(*planner.CreateView); ok && cv.Materialized {
		deps = deps[:0]
		for _, id := range compute.Imports(plan, s.engine.joinIndexes()) {
			deps = append(deps, uint64(id))
		}
	}
	var imports []string
	for _, id := range deps {
		if o := s.engine.catalogObject(id); o != nil {
			imports = append(imports, fmt.Sprintf("%s %s (g%d)", o.Kind, o.Name, id))
		}
	}
	// ANALYZE runs the query: its rows and the time it took, from the
	// read to the last row (the plan has no per-operator figures).
	var rows int
	var took time.Duration
	if st.Analyze {
		start := time.Now()
		out, err := s.selectDatums(ctx, st.Inner.(*planner.Select))
		if err != nil {
			return result{}, err
		}
		rows, took = len(out), time.Since(start)
	}
	ms := float64(took.Microseconds()) / 1000
	res := result{tag: "EXPLAIN"}
	if st.Format == "json" {
		doc := map[string]any{"Plan": explainTree(lines)}
		if len(imports) > 0 {
			doc["Imports"] = imports
		}
		if st.Analyze {
			doc["Actual Rows"] = rows
			doc["Execution Time"] = ms
		}
		b, err := json.MarshalIndent([]any{doc}, "", "  ")
		if err != nil {
			return result{}, sqlerr.Wrapf(err, sqlerr.InternalError, "encoding the plan")
		}
		res.columns = []pgwire.Column{{Name: "QUERY PLAN", TypeOID: repr.JSON.OID(), TypeSize: -1, TypeModifier: -1}}
		res.rows = [][][]byte{{b}}
		return res, nil
	}
	res.columns = []pgwire.Column{textColumn("QUERY PLAN")}
	for _, line := range lines {
		res.rows = append(res.rows, [][]byte{[]byte(line)})
	}
	for _, im := range imports {
		res.rows = append(res.rows, [][]byte{[]byte("Imports " + im)})
	}
	if st.Analyze {
		res.rows = append(res.rows, [][]byte{[]byte(fmt.Sprintf("Actual Rows: %d", rows))},
			[][]byte{[]byte(fmt.Sprintf("Execution Time: %.3f ms", ms))})
	}
	return res, nil
}

// explainTree turns EXPLAIN's text lines, two spaces of indent a level,
// into nested nodes for FORMAT JSON: each with its "Node Type" (the
// line's first word), its "Detail" (the rest) and its "Plans".
func explainTree(lines []string) map[string]any {
	type frame struct {
		node  map[string]any
		depth int
	}
	var root map[string]any
	var stack []frame
	for _, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		depth := (len(line) - len(trimmed)) / 2
		kind, detail, _ := strings.Cut(trimmed, " ")
		node := map[string]any{"Node Type": kind}
		if detail != "" {
			node["Detail"] = detail
		}
		for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			if root == nil {
				root = node
			} else {
				// A second top-level line (none today): under the root.
				plans, _ := root["Plans"].([]any)
				root["Plans"] = append(plans, node)
			}
		} else {
			parent := stack[len(stack)-1].node
			plans, _ := parent["Plans"].([]any)
			parent["Plans"] = append(plans, node)
		}
		stack = append(stack, frame{node: node, depth: depth})
	}
	return root
}

// objectFor builds the catalog object of a new relation.
func (s *Session) objectFor(kind catalog.Kind, name planner.QualifiedName, cols []planner.Column, sql string) *catalog.Object {
	o := &catalog.Object{Kind: kind, Name: name.Name, Database: s.database, Schema: catalog.DefaultSchema, SQL: sql, Owner: s.ownerForNew(),
		SearchPath: s.storedPath()}
	if kind == catalog.MaterializedView {
		o.TimeZone = s.storedZone()
	}
	if schema, err := s.creationSchema(name); err == nil {
		o.Schema = schema
	} else if name.Schema != "" {
		o.Schema = name.Schema
	}
	for _, c := range cols {
		o.Columns = append(o.Columns, catalog.Column{Name: c.Name, Type: c.Type, NotNull: !c.Nullable})
	}
	return o
}

func (s *Session) createTable(ctx context.Context, st *planner.CreateTable, w pgwire.Writer) (result, error) {
	if err := refuseSystemSchema(st.Name); err != nil {
		return result{}, err
	}
	if st.Temp {
		var err error
		if st.Name, err = s.tempName(ctx, st.Name); err != nil {
			return result{}, err
		}
	}
	schema, err := s.creationSchema(st.Name)
	if err != nil {
		return result{}, err
	}
	o := &catalog.Object{Kind: catalog.Table, Name: st.Name.Name, Database: s.database, Schema: schema, Owner: s.ownerForNew(),
		TimeZone: s.storedZone()}
	defaults := make([]expr.Scalar, len(st.Columns))
	var seqs []*catalog.Object
	for i, c := range st.Columns {
		col := catalog.Column{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Identity: c.Identity}
		if c.Default != nil {
			col.Default = c.Default.String()
			defaults[i] = c.Default
		}
		if c.Sequence != nil {
			seqs = append(seqs, s.sequenceObject(*c.Sequence, i+1))
		}
		o.Columns = append(o.Columns, col)
	}
	for _, k := range st.UniqueKeys {
		o.UniqueKeys = append(o.UniqueKeys, catalog.UniqueKey{Name: k.Name, Columns: k.Columns, Primary: k.Primary})
	}
	err = s.engine.CreateTable(ctx, o, defaults, seqs...)
	if err != nil && st.IfNotExists && sqlerr.Code(err) == sqlerr.DuplicateTable {
		w.Notice(sqlerr.New(sqlerr.DuplicateTable, "relation %q already exists, skipping", st.Name.Name).WithSeverity(sqlerr.SeverityNotice))
		err = nil
	}
	return result{tag: "CREATE TABLE"}, err
}

func (s *Session) createView(ctx context.Context, st *planner.CreateView, w pgwire.Writer) (result, error) {
	if err := refuseSystemSchema(st.Name); err != nil {
		return result{}, err
	}
	if _, readsTemp := s.readsTemp(st.Reads); readsTemp || st.Temp {
		// A view over a temporary relation is temporary, as in
		// PostgreSQL; a materialized view cannot be.
		if st.Materialized {
			return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "materialized views must not use temporary tables or views")
		}
		if !st.Temp {
			w.Notice(sqlerr.New(sqlerr.SuccessfulCompletion, "view %q will be a temporary view", st.Name.Name).WithSeverity(sqlerr.SeverityNotice))
		}
		var err error
		if st.Name, err = s.tempName(ctx, st.Name); err != nil {
			return result{}, err
		}
	}
	if _, err := s.creationSchema(st.Name); err != nil {
		return result{}, err
	}
	if expr.ContainsNow(st.Plan) {
		// A view is maintained over all times; it has no single "now".
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "now() and current_timestamp are not supported in views")
	}
	if st.Materialized && expr.ContainsRecursive(st.Plan) {
		// Evaluated to a fixpoint per query; not maintained yet.
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "WITH RECURSIVE is not supported in materialized views")
	}
	if expr.ContainsRandom(st.Plan) {
		// A view's rows must come out the same each time they are
		// computed; no statement gives the call its random key.
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "gen_random_uuid() and random() are not supported in views")
	}
	if calls := expr.SessionCalls(st.Plan); len(calls) > 0 {
		// A view is read by every session; its value cannot be one's.
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "%s is not supported in views: its value depends on the session", calls[0].CallName())
	}
	kind := catalog.View
	if st.Materialized {
		kind = catalog.MaterializedView
	}
	o := s.objectFor(kind, st.Name, st.Columns, st.Query)
	o.UsesTypes = st.Enums
	names, err := s.dependOn(o, st)
	if err != nil {
		return result{}, err
	}
	if st.OrReplace && !st.Materialized {
		if replaced, err := s.replaceView(ctx, o, st.Name); replaced || err != nil {
			return result{tag: st.Tag()}, err
		}
	}
	if st.Materialized {
		err = s.engine.CreateMaterializedView(withProgress(ctx, progressNotices(w)), o, st.Plan, names)
	} else {
		err = s.engine.CreateView(ctx, o, names)
	}
	err = s.engine.createError(ctx, o.DependsOn, err)
	if err != nil && st.IfNotExists && sqlerr.Code(err) == sqlerr.DuplicateTable {
		w.Notice(sqlerr.New(sqlerr.DuplicateTable, "relation %q already exists, skipping", st.Name.Name).WithSeverity(sqlerr.SeverityNotice))
		err = nil
	}
	return result{tag: st.Tag()}, err
}

// dependOn makes view o depend on every relation its definition st
// reads, as the planner recorded them, and returns their names for the
// engine's errors; the engine checks, when it commits the view, that
// they all still exist.
func (s *Session) dependOn(o *catalog.Object, st *planner.CreateView) (map[uint64]string, error) {
	names := map[uint64]string{}
	for _, r := range st.Reads {
		id := uint64(r.ID)
		if id == 0 || isSystemTable(id) {
			// A built-in relation is no catalog object, and a system
			// table is never dropped. A relation written from a
			// session's state as a statement is planned would hold
			// that state in a dataflow.
			if g, ok := generatedViews[r.Name.Name]; ok && g.session != nil && st.Materialized {
				return nil, sqlerr.New(sqlerr.FeatureNotSupported, "materialized views over %s are not supported", r.Name.Name)
			}
			continue
		}
		// Reading a view through its index depends on the view.
		if on, ok := s.engine.indexedRelation(id); ok {
			id = on
		}
		if !slices.Contains(o.DependsOn, id) {
			o.DependsOn = append(o.DependsOn, id)
			names[id] = r.Name.Name
		}
	}
	return names, nil
}

func (s *Session) createIndex(ctx context.Context, st *planner.CreateIndex, w pgwire.Writer) (result, error) {
	if st.OnID == 0 {
		return result{}, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied: %q is a system catalog", st.On.Name)
	}
	onID := uint64(st.OnID)
	// The planner reads an indexed view through its index; a second
	// index is on the view itself.
	if id, ok := s.engine.indexedRelation(onID); ok {
		onID = id
	}
	o := &catalog.Object{Kind: catalog.Index, Name: st.Name, Database: s.database, Schema: catalog.DefaultSchema,
		On: onID, DependsOn: []uint64{onID}, UsesTypes: st.Enums}
	on := s.engine.catalogObject(onID)
	if on == nil {
		return result{}, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", st.On.Name)
	}
	// An index belongs to its relation's owner and is in its schema, as
	// in PostgreSQL.
	o.Owner, o.Schema, o.SearchPath = on.Owner, on.Schema, s.storedPath()
	keys, err := indexKeySQL(on, st.Keys)
	if err != nil {
		return result{}, err
	}
	o.SQL = keys
	if st.Unique {
		o.Unique = true
		for _, k := range st.Keys {
			c, ok := k.(expr.Column)
			if !ok {
				return result{}, sqlerr.AssertionFailedf("unique index %s has an expression key %s", st.Name, k)
			}
			o.KeyColumns = append(o.KeyColumns, c.Index)
		}
	}
	onPlan, generated, err := s.relationPlanOf(on)
	if err != nil {
		return result{}, err
	}
	if generated {
		// The index's dataflow would hold the sessions' state of this
		// moment.
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "indexes on views over pg_settings or pg_stat_activity are not supported")
	}
	err = s.engine.CreateIndex(withProgress(ctx, progressNotices(w)), o, onPlan, st.Keys, on.Name)
	err = s.engine.createError(ctx, o.DependsOn, err)
	if err != nil && st.IfNotExists && sqlerr.Code(err) == sqlerr.DuplicateTable {
		w.Notice(sqlerr.New(sqlerr.DuplicateTable, "relation %q already exists, skipping", st.Name).WithSeverity(sqlerr.SeverityNotice))
		err = nil
	}
	return result{tag: "CREATE INDEX"}, err
}

// writeRows runs a write's plan at the read time and turns its rows into
// table changes: inserts (split 0), retractions (split -1), or old and
// new halves (split n). In a transaction block the changes wait for
// COMMIT; otherwise they commit now, at one time.
//
// With a RETURNING list, the result holds the list evaluated over each
// row written (for DELETE, removed; for UPDATE, the new row), once per
// count, computed before anything is written: an error there writes
// nothing.
func (s *Session) writeRows(ctx context.Context, t planner.Target, plan expr.Relation, split int, ret *planner.Returning) (int64, result, error) {
	if ret == nil {
		// Nothing is returned: the rows are written in the encoding the
		// read gives them in.
		bound, ts, deps, done, err := s.prepareWrite(ctx, plan)
		if err != nil {
			return 0, result{}, err
		}
		defer done()
		updates, err := s.engine.ReadEncoded(ctx, bound, ts)
		if err != nil {
			return 0, result{}, err
		}
		n, writes := encodedWrites(t, updates, split)
		if err := s.submitWrites(ctx, t, deps, writes); err != nil {
			return 0, result{}, err
		}
		return n, result{}, nil
	}
	rows, deps, done, err := s.readForWrite(ctx, plan)
	if err != nil {
		return 0, result{}, err
	}
	defer done()
	var writes []TableWrite
	var res result
	if ret != nil {
		res.columns = describe(ret.Columns)
	}
	var n int64
	for _, r := range rows {
		if ret != nil {
			row := r.Datums
			if split > 0 {
				row = r.Datums[split:]
			}
			out, err := returningRow(ret, row, s.zone())
			if err != nil {
				return 0, result{}, err
			}
			for i := int64(0); i < r.Diff; i++ {
				res.rows = append(res.rows, out)
			}
		}
		switch {
		case split == 0:
			writes = append(writes, TableWrite{Table: uint64(t.ID), Row: repr.PackRow(r.Datums...), Diff: r.Diff, Shape: t.Shape})
		case split < 0:
			writes = append(writes, TableWrite{Table: uint64(t.ID), Row: repr.PackRow(r.Datums...), Diff: -r.Diff, Shape: t.Shape})
		default:
			writes = append(writes,
				TableWrite{Table: uint64(t.ID), Row: repr.PackRow(r.Datums[:split]...), Diff: -r.Diff, Shape: t.Shape},
				TableWrite{Table: uint64(t.ID), Row: repr.PackRow(r.Datums[split:]...), Diff: r.Diff, Shape: t.Shape})
		}
		n += r.Diff
	}
	if err := s.submitWrites(ctx, t, deps, writes); err != nil {
		return 0, result{}, err
	}
	return n, res, nil
}

// readForWrite reads the plan of a write statement at the read time and
// returns its rows and the relations it read. Outside a transaction
// block it first takes the DML lock, so that read and write are one
// step: no other write may land between. done releases the lock and the
// read time; call it once the writes are submitted.
func (s *Session) readForWrite(ctx context.Context, plan expr.Relation) (rows expr.Collection, deps []uint64, done func(), err error) {
	bound, ts, deps, done, err := s.prepareWrite(ctx, plan)
	if err != nil {
		return nil, nil, nil, err
	}
	if rows, err = s.engine.Read(ctx, bound, ts); err != nil {
		done()
		return nil, nil, nil, err
	}
	return rows, deps, done, nil
}

// prepareWrite does what comes before a write statement's read: it
// checks the plan, takes the DML lock outside a transaction block, binds
// the session's values and takes the read time. It returns the plan to
// read at ts, the relations it reads, and done, which releases the lock
// and the read time.
func (s *Session) prepareWrite(ctx context.Context, plan expr.Relation) (bound expr.Relation, ts uint64, deps []uint64, done func(), err error) {
	if err := s.checkOwnWrites(plan); err != nil {
		return nil, 0, nil, nil, err
	}
	deps = dependencies(plan)
	var undo []func()
	release := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	defer func() {
		if err != nil {
			release()
		}
	}()
	if s.tx.status != pgwire.TxInBlock && len(deps) > 0 {
		if err := s.engine.dmlMu.acquire(ctx); err != nil {
			return nil, 0, nil, nil, err
		}
		undo = append(undo, s.engine.dmlMu.Unlock)
	}
	plan, apply, err := s.bindSession(plan)
	if err != nil {
		return nil, 0, nil, nil, err
	}
	if apply != nil {
		return nil, 0, nil, nil, sqlerr.New(sqlerr.FeatureNotSupported, "set_config() is not supported in INSERT, UPDATE, DELETE or MERGE")
	}
	if err := s.engine.flushCatalogFor(ctx, plan); err != nil {
		return nil, 0, nil, nil, err
	}
	ts, now, releaseRead := s.readTime()
	undo = append(undo, releaseRead)
	return withNow(withRandomKeys(plan), now), ts, deps, release, nil
}

// encodedWrites are the writes to t of a read's encoded rows, as
// writeRows makes them of decoded ones, and the count of rows they
// write.
func encodedWrites(t planner.Target, updates []arrange.Update, split int) (int64, []TableWrite) {
	n := len(updates)
	if split > 0 {
		n *= 2
	}
	writes := make([]TableWrite, 0, n)
	prefault.Slice(writes)
	var count int64
	for _, u := range updates {
		switch {
		case split == 0:
			writes = append(writes, TableWrite{Table: uint64(t.ID), Row: u.Key, Diff: u.Diff, Shape: t.Shape})
		case split < 0:
			writes = append(writes, TableWrite{Table: uint64(t.ID), Row: u.Key, Diff: -u.Diff, Shape: t.Shape})
		default:
			old := repr.Row(u.Key).Prefix(split)
			writes = append(writes,
				TableWrite{Table: uint64(t.ID), Row: old, Diff: -u.Diff, Shape: t.Shape},
				TableWrite{Table: uint64(t.ID), Row: u.Key[len(old):], Diff: u.Diff, Shape: t.Shape})
		}
		count += u.Diff
	}
	return count, writes
}

// submitWrites commits a statement's writes to table t, which read deps:
// in a transaction block, it adds them to the block's; otherwise it
// writes them now.
func (s *Session) submitWrites(ctx context.Context, t planner.Target, deps []uint64, writes []TableWrite) error {
	if s.tx.status == pgwire.TxInBlock {
		if err := s.engine.checkBlockWrite(&s.tx.keys, s.tx.writes, writesOf(writes)); err != nil {
			return err
		}
		s.tx.writes = append(s.tx.writes, writes...)
		if s.tx.read == nil {
			s.tx.read, s.tx.written = map[uint64]bool{}, map[uint64]bool{}
		}
		for _, id := range deps {
			s.tx.read[id] = true
		}
		s.tx.written[uint64(t.ID)] = true
		s.tx.noteName(uint64(t.ID), t.Name.Name)
		return nil
	}
	if len(writes) == 0 {
		return nil
	}
	if _, err := s.engine.Write(ctx, writes); err != nil {
		return namedTableError(err, map[uint64]string{uint64(t.ID): t.Name.Name})
	}
	return nil
}

func (s *Session) drop(ctx context.Context, st *planner.Drop, w pgwire.Writer) (result, error) {
	kind := map[planner.ObjectKind]catalog.Kind{
		planner.ObjectTable: catalog.Table, planner.ObjectView: catalog.View,
		planner.ObjectMaterializedView: catalog.MaterializedView, planner.ObjectIndex: catalog.Index,
		planner.ObjectSequence: catalog.Sequence,
	}[st.Kind]
	for _, name := range st.Names {
		if _, ok := s.resolveBuiltin(name); ok || name.Schema == pgCatalogSchema {
			return result{}, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied: %q is a system catalog", name.Name)
		}
		// The plan is made and carried out under one catalog version:
		// nothing can be created over what it drops in between.
		var skipped *sqlerr.Error
		plan, err := s.engine.Drop(ctx, func(c *catalog.Catalog) (*catalog.DropPlan, error) {
			skipped = nil
			o, err := s.lookup(c, name)
			if err != nil {
				if st.IfExists && sqlerr.Code(err) == sqlerr.UndefinedTable {
					skipped = sqlerr.New(sqlerr.UndefinedTable, "%s %q does not exist, skipping", kind, name.Name).WithSeverity(sqlerr.SeverityNotice)
					return nil, nil
				}
				// As PostgreSQL: a missing relation is 42P01, a missing
				// index 42704.
				if kind == catalog.Index {
					return nil, sqlerr.New(sqlerr.UndefinedObject, "%s %q does not exist", kind, name.Name)
				}
				return nil, sqlerr.New(sqlerr.UndefinedTable, "%s %q does not exist", kind, name.Name)
			}
			if role, _ := s.sessionRole(c); kind == o.Kind {
				if err := checkOwner(c, o, role); err != nil {
					return nil, err
				}
			}
			return c.PlanDrop(kind, o, st.Cascade)
		})
		if err != nil {
			return result{}, err
		}
		if skipped != nil {
			w.Notice(skipped)
		}
		if plan != nil && plan.Notice != "" {
			n := sqlerr.New(sqlerr.SuccessfulCompletion, "%s", plan.Notice).WithSeverity(sqlerr.SeverityNotice)
			if plan.Detail != "" {
				n = n.WithDetail("%s", plan.Detail)
			}
			w.Notice(n)
		}
	}
	return result{tag: st.Tag()}, nil
}

func (s *Session) dropDatabase(ctx context.Context, st *planner.DropDatabase, w pgwire.Writer) (result, error) {
	if st.Name == s.database {
		return result{}, sqlerr.New(sqlerr.ObjectInUse, "cannot drop the currently open database")
	}
	_, err := s.engine.Drop(ctx, func(c *catalog.Catalog) (*catalog.DropPlan, error) {
		return c.PlanDropDatabase(st.Name)
	})
	if err != nil {
		if st.IfExists && sqlerr.Code(err) == sqlerr.InvalidCatalogName {
			w.Notice(sqlerr.New(sqlerr.InvalidCatalogName, "database %q does not exist, skipping", st.Name).WithSeverity(sqlerr.SeverityNotice))
			return result{tag: "DROP DATABASE"}, nil
		}
		return result{}, err
	}
	return result{tag: "DROP DATABASE"}, nil
}

// relationPlan is the plan that reads relation on: its export, or for a
// view that is not materialized its definition.
func (s *Session) relationPlan(on *catalog.Object) (expr.Relation, error) {
	plan, _, err := s.relationPlanOf(on)
	return plan, err
}

// relationPlanOf is relationPlan, and reports whether the plan read a
// relation written from the catalog as it was planned.
func (s *Session) relationPlanOf(on *catalog.Object) (expr.Relation, bool, error) {
	if on.Kind != catalog.View {
		return expr.Get{ID: expr.GlobalID(on.ID), Name: on.Name, Types: on.ColumnTypes()}, false, nil
	}
	var generated bool
	stmts, err := planner.Plan(s.recordingCatalog(&generated), on.SQL)
	if err != nil {
		return nil, false, err
	}
	sel, ok := stmts[0].(*planner.Select)
	if !ok || len(stmts) != 1 {
		return nil, false, sqlerr.AssertionFailedf("view %s planned as %T", on.Name, stmts[0])
	}
	return sel.Plan, generated, nil
}

// returningRow is a RETURNING list evaluated over one row, as text.
func returningRow(ret *planner.Returning, row []repr.Datum, z *repr.Zone) ([][]byte, error) {
	vals := make([]repr.Datum, len(ret.Scalars))
	for i, e := range ret.Scalars {
		v, err := e.Eval(row)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return textRow(vals, ret.Columns, z), nil
}
