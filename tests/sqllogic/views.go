package sqllogic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ViewMode says whether RunScript also makes materialized views of the
// queries, and when. A view is checked, then dropped, before the next
// statement that drops a table or a view (its table may be that one) and
// at the end of the file: its contents must equal the query's result as
// a multiset. The expected multiset is the query's own result when no
// statement that may write has run since the query; otherwise the query
// is run again at the check. A view that cannot be created, read or
// dropped, or whose contents differ, is a failed view.
type ViewMode uint8

const (
	// NoViews runs the file as queries only.
	NoViews ViewMode = iota
	// ViewsAfter makes a view of each query right after it passes, over
	// the data loaded so far: the views test hydration from existing
	// data and maintenance under the file's later writes.
	ViewsAfter
	// ViewsBefore makes a view of each query of Options.Candidates as
	// soon as its tables exist, before the file loads their data: at the
	// start and after every statement that creates or drops a table or
	// a view, from the first of those points after which the view can
	// be created and its query's tables are not dropped before the
	// query. Every later write then reaches the view incrementally.
	ViewsBefore
)

func (m ViewMode) String() string {
	switch m {
	case NoViews:
		return "queries"
	case ViewsAfter:
		return "views-after"
	case ViewsBefore:
		return "views-before"
	}
	return fmt.Sprintf("ViewMode(%d)", int(m))
}

// liveView is a view RunScript created and has not checked yet.
type liveView struct {
	rec  *Record
	name string
	// values is the query's result in this run, rendered and sorted, and
	// gen the write generation it was taken at; nil if the query has not
	// passed in this run yet.
	values []string
	gen    int
}

// viewState is the view bookkeeping of one RunScript call.
type viewState struct {
	mode ViewMode
	// segment[i] counts the statements before record i that drop a
	// table or a view: a view is created and checked within one segment.
	segment []int
	// order lists the indexes of the candidate queries, in file order,
	// and next is the first of them not yet reached.
	order []int
	next  int
	// live holds the views created and not yet checked, in creation
	// order; byRecord finds them by query.
	live     []*liveView
	byRecord map[*Record]*liveView
	// lastErr is the error of the last failed attempt to create a
	// candidate's view.
	lastErr map[*Record]error
	// gen counts the statements that may have written.
	gen int
}

func newViewState(s *Script, opts Options) *viewState {
	v := &viewState{mode: opts.Views, byRecord: map[*Record]*liveView{}, lastErr: map[*Record]error{}}
	v.segment = make([]int, len(s.Records)+1)
	drops := 0
	for i := range s.Records {
		v.segment[i] = drops
		rec := &s.Records[i]
		if _, skip := rec.Skipped(opts.Engine); skip {
			continue
		}
		if rec.Kind == Statement && dropsRelation(rec.SQL) {
			drops++
		}
		if rec.Kind == Query && opts.Views == ViewsBefore && opts.Candidates[rec.Line] {
			v.order = append(v.order, i)
		}
	}
	v.segment[len(s.Records)] = drops
	return v
}

// words returns the first n words of sql, upper-cased.
func words(sql string, n int) []string {
	f := strings.Fields(strings.ToUpper(sql))
	if len(f) > n {
		f = f[:n]
	}
	return f
}

// dropsRelation reports whether sql is DROP TABLE, DROP VIEW, DROP
// MATERIALIZED VIEW or ALTER TABLE. ALTER TABLE counts as a drop because
// it may change the columns a query reads: a view of a query with * made
// before ADD COLUMN keeps its columns while the query, run again, gets
// the new one, and DROP COLUMN refuses a table that views read.
func dropsRelation(sql string) bool {
	w := words(sql, 3)
	if len(w) < 2 || (w[0] != "DROP" && w[0] != "ALTER") {
		return false
	}
	if w[0] == "ALTER" {
		return w[1] == "TABLE"
	}
	return w[1] == "TABLE" || w[1] == "VIEW" || len(w) == 3 && w[1] == "MATERIALIZED" && w[2] == "VIEW"
}

// createsRelation reports whether sql creates a table or a view.
func createsRelation(sql string) bool {
	w := words(sql, 4)
	if len(w) < 2 || w[0] != "CREATE" {
		return false
	}
	for _, x := range w[1:] {
		switch x {
		case "TABLE", "VIEW":
			return true
		case "OR", "REPLACE", "TEMP", "TEMPORARY", "MATERIALIZED":
		default:
			return false
		}
	}
	return false
}

// mayWrite reports whether statement sql may change what a query reads:
// any statement may, DDL too, since the catalog's relations (pg_class,
// pg_index, …) are rows that every CREATE and DROP changes. Only SET and
// the transaction statements change no rows.
func mayWrite(sql string) bool {
	w := words(sql, 1)
	if len(w) == 0 {
		return false
	}
	switch w[0] {
	case "SET", "RESET", "BEGIN", "START", "COMMIT", "END", "ROLLBACK", "SHOW":
		return false
	}
	return true
}

// viewName is the name of the view of the query at line.
func viewName(line int) string { return fmt.Sprintf("slt_view_%d", line) }

// createView creates the view of rec's query.
func (r *runner) createView(ctx context.Context, rec *Record) (*liveView, error) {
	name := viewName(rec.Line)
	cols := make([]string, len(rec.Types))
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d", i+1)
	}
	sql := fmt.Sprintf("CREATE MATERIALIZED VIEW %s (%s) AS %s", name, strings.Join(cols, ", "), querySQL(rec))
	if err := r.exec(ctx, sql); err != nil {
		return nil, err
	}
	v := &liveView{rec: rec, name: name}
	r.views.live = append(r.views.live, v)
	r.views.byRecord[rec] = v
	return v, nil
}

// querySQL is rec's SQL without surrounding space and trailing
// semicolons, ready to be embedded in another statement.
func querySQL(rec *Record) string {
	return strings.TrimRight(strings.TrimSpace(rec.SQL), "; \t\r\n")
}

// bounded returns ctx bounded by the record timeout.
func (r *runner) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.opts.Timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, r.opts.Timeout)
}

// exec runs sql under the record timeout and describes its error.
func (r *runner) exec(ctx context.Context, sql string) error {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	if err := r.db.Exec(ctx, sql); err != nil {
		return errors.New(r.errText(ctx, err))
	}
	return nil
}

// queryRows runs sql under the record timeout and describes its error.
func (r *runner) queryRows(ctx context.Context, sql string) (int, [][]Value, error) {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	columns, rows, err := r.db.Query(ctx, sql)
	if err != nil {
		return 0, nil, errors.New(r.errText(ctx, err))
	}
	return columns, rows, nil
}

// creationPoint tries to create the views of the candidates that come
// after record i (the point is before record i) within its segment.
func (r *runner) creationPoint(ctx context.Context, i int) {
	v := r.views
	if v == nil || v.mode != ViewsBefore {
		return
	}
	for _, j := range v.order[v.next:] {
		if v.segment[j] != v.segment[i] {
			break
		}
		rec := &r.script.Records[j]
		if v.byRecord[rec] != nil {
			continue
		}
		if _, err := r.createView(ctx, rec); err != nil {
			v.lastErr[rec] = err
		}
	}
}

// beforeQuery runs before query record rec (at index i): the last chance
// to create a candidate's view.
func (r *runner) beforeQuery(ctx context.Context, i int, rec *Record) {
	v := r.views
	if v == nil || v.mode != ViewsBefore {
		return
	}
	for v.next < len(v.order) && v.order[v.next] <= i {
		v.next++
	}
	if !r.opts.Candidates[rec.Line] || v.byRecord[rec] != nil {
		return
	}
	if _, err := r.createView(ctx, rec); err != nil {
		r.viewResult(rec, failure(rec, fmt.Sprintf("view: cannot create %s: %s", viewName(rec.Line), err), nil))
		if prev := v.lastErr[rec]; prev != nil {
			r.log(fmt.Sprintf("%s: earlier attempt: %v", rec.Pos(), prev))
		}
	}
}

// afterQuery runs after query record rec passed with values got.
func (r *runner) afterQuery(ctx context.Context, rec *Record, got []string) {
	v := r.views
	if v == nil {
		return
	}
	lv := v.byRecord[rec]
	if lv == nil && v.mode == ViewsAfter {
		var err error
		if lv, err = r.createView(ctx, rec); err != nil {
			r.viewResult(rec, failure(rec, fmt.Sprintf("view: cannot create %s: %s", viewName(rec.Line), err), nil))
			return
		}
	}
	if lv != nil {
		lv.values, lv.gen = got, v.gen
	}
}

// afterStatement runs after statement record rec, at index i.
func (r *runner) afterStatement(ctx context.Context, i int, rec *Record) {
	v := r.views
	if v == nil {
		return
	}
	if mayWrite(rec.SQL) {
		v.gen++
	}
	if createsRelation(rec.SQL) || dropsRelation(rec.SQL) {
		r.creationPoint(ctx, i+1)
	}
}

// checkViews checks and drops every live view.
func (r *runner) checkViews(ctx context.Context) {
	v := r.views
	if v == nil {
		return
	}
	for _, lv := range v.live {
		msg := r.checkView(ctx, lv)
		if err := r.exec(ctx, "DROP MATERIALIZED VIEW "+lv.name); err != nil && msg == "" {
			msg = failure(lv.rec, fmt.Sprintf("view: cannot drop %s: %s", lv.name, err), nil)
		}
		r.viewResult(lv.rec, msg)
		delete(v.byRecord, lv.rec)
	}
	v.live = v.live[:0]
}

// checkView compares a view's contents with its query's result and
// returns a failure message, or "" if they are equal as multisets.
func (r *runner) checkView(ctx context.Context, lv *liveView) string {
	rec := lv.rec
	columns, rows, err := r.queryRows(ctx, "SELECT * FROM "+lv.name)
	if err != nil {
		return failure(rec, fmt.Sprintf("view: cannot read %s: %s", lv.name, err), nil)
	}
	if columns != len(rec.Types) {
		return failure(rec, fmt.Sprintf("view: %s has %d columns, the query %d", lv.name, columns, len(rec.Types)), nil)
	}
	got := canonical(rec, RenderRows(rec.Types, rows))
	want, source := lv.values, "the query's result"
	if want == nil || lv.gen != r.views.gen {
		qcols, qrows, err := r.queryRows(ctx, rec.SQL)
		if err != nil {
			return failure(rec, fmt.Sprintf("view: cannot run the query again to check %s: %s", lv.name, err), nil)
		}
		if qcols != len(rec.Types) {
			return failure(rec, fmt.Sprintf("view: the query now has %d columns, want %d", qcols, len(rec.Types)), nil)
		}
		want, source = RenderRows(rec.Types, qrows), "the query's result now"
	}
	want = canonical(rec, want)
	if slices.Equal(got, want) {
		return ""
	}
	what := fmt.Sprintf("view: %s differs from %s: %d values, want %d", lv.name, source, len(got), len(want))
	if len(got) == len(want) {
		for i := range got {
			if got[i] != want[i] {
				what = fmt.Sprintf("view: %s differs from %s at value %d: %q, want %q", lv.name, source, i+1, got[i], want[i])
				break
			}
		}
	}
	return failure(rec, what, append(append([]string{"view:"}, shown(got)...), append([]string{"query:"}, shown(want)...)...))
}

// canonical returns values sorted so that two results that are equal as
// multisets are equal as lists: by row, or by value for a valuesort
// record, whose values have lost their rows.
func canonical(rec *Record, values []string) []string {
	out := slices.Clone(values)
	if out == nil {
		out = []string{}
	}
	if rec.Sort == ValueSort {
		slices.Sort(out)
	} else {
		Sort(RowSort, len(rec.Types), out)
	}
	return out
}

// viewResult records the outcome of rec's view: a pass if msg is empty.
func (r *runner) viewResult(rec *Record, msg string) {
	rr := RecordResult{Record: rec, Outcome: Passed, View: true}
	if msg != "" {
		rr.Outcome, rr.Message = Failed, msg
		r.log(msg)
	}
	r.res.add(rr)
}
