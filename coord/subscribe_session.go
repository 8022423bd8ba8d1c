package coord

import (
	"context"
	"fmt"
	"strconv"

	"freshet/expr"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// SUBSCRIBE, as in Materialize: the rows of a relation or query as of one
// time, then every change, time by time, each row prefixed by mz_timestamp
// (milliseconds since the Unix epoch, numeric), mz_progressed (only WITH
// (PROGRESS): true on a row that says every change before its time was
// sent, whose other columns are NULL) and mz_diff (how many copies of the
// row were added, negative for removed). Bare and as COPY (…) TO STDOUT it
// streams through COPY TO STDOUT until it is cancelled, the client goes
// away, UP TO is reached, or what it reads is dropped (that error). As
// DECLARE … CURSOR FOR SUBSCRIBE it is read by FETCH, which waits up to
// its WITH (timeout = …) for a first row.

// subscribeColumns describes a subscription's rows.
func subscribeColumns(st *planner.Subscribe) []planner.Column {
	cols := []planner.Column{{Name: "mz_timestamp", Type: repr.Numeric}}
	if st.Progress {
		cols = append(cols, planner.Column{Name: "mz_progressed", Type: repr.Bool})
	}
	cols = append(cols, planner.Column{Name: "mz_diff", Type: repr.Int8, Nullable: st.Progress})
	for _, c := range st.Query.Columns {
		c.Nullable = true
		c.Source = planner.ColumnSource{}
		cols = append(cols, c)
	}
	return cols
}

// subscribeSQL plans sql, one SUBSCRIBE, and starts it: the engine's own
// subscriptions (the console's).
func (s *Session) subscribeSQL(ctx context.Context, sql string) (*Subscription, error) {
	stmts, err := planner.Plan(s.catalog(), sql)
	if err != nil {
		return nil, err
	}
	st, ok := stmts[0].(*planner.Subscribe)
	if len(stmts) != 1 || !ok {
		return nil, sqlerr.AssertionFailedf("not one SUBSCRIBE: %s", sql)
	}
	return s.startSubscribe(ctx, st)
}

// startSubscribe binds and starts st's subscription.
func (s *Session) startSubscribe(ctx context.Context, st *planner.Subscribe) (*Subscription, error) {
	if s.tx.status == pgwire.TxInBlock && len(s.tx.writes) > 0 {
		return nil, sqlerr.New(sqlerr.ActiveSQLTransaction, "SUBSCRIBE cannot run in a transaction block that has written")
	}
	q := st.Query
	if q.Finishing.Limit >= 0 || q.Finishing.Offset > 0 {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "LIMIT and OFFSET in SUBSCRIBE are not supported")
	}
	plan, apply, err := s.bindSelect(ctx, q)
	if err != nil {
		return nil, err
	}
	if apply != nil {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "set_config() in SUBSCRIBE is not supported")
	}
	if expr.ContainsRandom(plan) {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "gen_random_uuid() and random() are not supported in SUBSCRIBE")
	}
	// The visible columns only; ORDER BY has no meaning for changes.
	plan = expr.Project{Input: plan, Outputs: q.Finishing.Project}
	return s.engine.Subscribe(ctx, plan, SubscribeOptions{Snapshot: st.Snapshot, AsOf: st.AsOf, UpTo: st.UpTo})
}

// subscribeRows turns a batch into rows of subscribeColumns.
func subscribeRows(b SubscribeBatch, progress bool, width int, last *uint64) [][]repr.Datum {
	var out [][]repr.Datum
	for _, c := range b.Changes {
		row := []repr.Datum{mzTimestamp(c.Time)}
		if progress {
			row = append(row, repr.NewBool(false))
		}
		row = append(row, repr.NewInt8(c.Diff))
		out = append(out, append(row, c.Row...))
	}
	if progress && !b.Done && b.Progress > *last {
		row := []repr.Datum{mzTimestamp(b.Progress), repr.NewBool(true), repr.Null}
		for range width {
			row = append(row, repr.Null)
		}
		out = append(out, row)
	}
	*last = b.Progress
	return out
}

// mzTimestamp is a time as the numeric mz_timestamp.
func mzTimestamp(t uint64) repr.Datum {
	d, err := repr.ParseText(repr.Numeric, strconv.FormatUint(t, 10))
	if err != nil {
		panic(err) // digits always parse
	}
	return d
}

// subscribeCopy runs SUBSCRIBE bare or as COPY (SUBSCRIBE …) TO STDOUT.
func (s *Session) subscribeCopy(ctx context.Context, st *planner.Subscribe, w pgwire.Writer) (result, error) {
	sub, err := s.startSubscribe(ctx, st)
	if err != nil {
		return result{}, err
	}
	defer sub.Close()
	cols := subscribeColumns(st)
	out, err := w.CopyOut(pgwire.CopyFormat{Columns: len(cols)})
	if err != nil {
		return result{}, err
	}
	zone := s.zone()
	var line []byte
	var n int64
	last := sub.Start()
	for {
		b, err := sub.Next(ctx)
		if err != nil {
			return result{}, err
		}
		for _, row := range subscribeRows(b, st.Progress, len(st.Query.Columns), &last) {
			line = line[:0]
			for i, v := range textRow(row, cols, zone) {
				if i > 0 {
					line = append(line, '\t')
				}
				line = appendCopyText(line, v, v == nil, "\t", `\N`)
			}
			if _, err := out.Write(append(line, '\n')); err != nil {
				return result{}, err
			}
			n++
		}
		if err := w.Flush(); err != nil {
			return result{}, err
		}
		if b.Done {
			return result{tag: fmt.Sprintf("COPY %d", n)}, nil
		}
	}
}

// subscribeCursor is the state of a cursor over SUBSCRIBE.
type subscribeCursor struct {
	sub      *Subscription
	progress bool
	width    int
	last     uint64
	// rows are the rows taken from the subscription and not yet
	// fetched; done is set once it sent its last batch.
	rows [][]repr.Datum
	done bool
}

// declareSubscribe runs DECLARE name CURSOR FOR SUBSCRIBE ….
func (s *Session) declareSubscribe(ctx context.Context, st *planner.Subscribe) (result, error) {
	if s.tx.status == pgwire.TxIdle || s.tx.implicit {
		return result{}, sqlerr.New(sqlerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if _, ok := s.cursors[st.Cursor]; ok {
		return result{}, sqlerr.New(sqlerr.DuplicateCursor, "cursor %q already exists", st.Cursor)
	}
	sub, err := s.startSubscribe(ctx, st)
	if err != nil {
		return result{}, err
	}
	if s.cursors == nil {
		s.cursors = map[string]*cursor{}
	}
	s.cursors[st.Cursor] = &cursor{columns: subscribeColumns(st), noScroll: true,
		subscribe: &subscribeCursor{sub: sub, progress: st.Progress, width: len(st.Query.Columns), last: sub.Start()}}
	return result{tag: "DECLARE CURSOR"}, nil
}

// fetchSubscribe is FETCH from a cursor over SUBSCRIBE: up to the count
// of rows, waiting (up to the timeout, if one is given) until there is at
// least one, then taking what else has come.
func (s *Session) fetchSubscribe(ctx context.Context, c *cursor, st *planner.Fetch) (result, error) {
	sc := c.subscribe
	if st.Direction != planner.FetchForward || st.Count < 0 {
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "a cursor over SUBSCRIBE can only FETCH forward")
	}
	want := int(min(st.Count, 1<<30))
	if st.All {
		want = 1 << 30
	}
	if len(sc.rows) == 0 && !sc.done && want > 0 {
		wctx := ctx
		if st.Timeout != nil {
			var cancel context.CancelFunc
			wctx, cancel = context.WithTimeout(ctx, *st.Timeout)
			defer cancel()
		}
		for len(sc.rows) == 0 && !sc.done {
			b, err := sc.sub.Next(wctx)
			if err != nil {
				if ctx.Err() == nil && wctx.Err() != nil {
					break // the timeout: whatever has come, maybe nothing
				}
				return result{}, err
			}
			sc.rows = append(sc.rows, subscribeRows(b, sc.progress, sc.width, &sc.last)...)
			sc.done = b.Done
		}
	}
	n := min(want, len(sc.rows))
	res := result{columns: describe(c.columns), tag: fmt.Sprintf("FETCH %d", n)}
	if st.Move {
		res = result{tag: fmt.Sprintf("MOVE %d", n)}
	}
	zone := s.zone()
	for _, r := range sc.rows[:n] {
		if !st.Move {
			res.rows = append(res.rows, textRow(r, c.columns, zone))
		}
	}
	sc.rows = sc.rows[n:]
	return res, nil
}
