package sqllogic

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultEngine is the engine name conditions are evaluated against when
// Options.Engine is empty.
const DefaultEngine = "postgresql"

// defaultHashThreshold is the hash threshold before a file's first
// hash-threshold record, as in the reference runner. It only decides how
// a failure message shows the actual result: comparison follows the form
// the file stores.
const defaultHashThreshold = 8

// Options tune Run. The zero value runs as engine postgresql, with no
// timeout, no log and no hook.
type Options struct {
	// Engine is the name skipif and onlyif conditions are evaluated
	// against; empty means DefaultEngine.
	Engine string
	// Timeout bounds each record, its OnQueryPass call included; zero
	// means no bound beyond ctx. A record that runs out of time fails.
	Timeout time.Duration
	// Log, if not nil, receives the message of each failure as it
	// happens.
	Log io.Writer
	// MaxFailures is the most failure messages Run writes to Log for one
	// file; later failures are counted and kept in the FileResult only.
	// Zero means no limit.
	MaxFailures int
	// Views makes a materialized view of each query as well, and checks
	// it; see ViewMode.
	Views ViewMode
	// Candidates holds, for ViewsBefore, the lines of the queries to make
	// views of: those that passed a run of the same file without views.
	Candidates map[int]bool
}

// Run parses file and runs its records on db in order; see RunScript. A
// file that does not parse gives a FileResult with Err set.
func Run(ctx context.Context, db DB, file string, opts Options) FileResult {
	s, err := ParseFile(file)
	if err != nil {
		return FileResult{File: file, Err: err}
	}
	return RunScript(ctx, db, s, opts)
}

// RunScript runs the records of s on db in order and returns their
// outcomes. Records excluded by their conditions are skipped, as are all
// statements and queries after a halt that is not excluded. Queries with
// the same label must produce the same result hash: the first query of a
// label that passes sets the hash for the later ones.
func RunScript(ctx context.Context, db DB, s *Script, opts Options) FileResult {
	start := time.Now()
	r := &runner{
		db:        db,
		opts:      opts,
		res:       FileResult{File: s.File},
		threshold: defaultHashThreshold,
		labels:    map[string]labelHash{},
		script:    s,
	}
	if r.opts.Engine == "" {
		r.opts.Engine = DefaultEngine
	}
	if r.opts.Views != NoViews {
		r.views = newViewState(s, r.opts)
		r.creationPoint(ctx, 0)
	}
	for i := range s.Records {
		rec := &s.Records[i]
		if err := ctx.Err(); err != nil {
			r.res.Err = err
			break
		}
		if rec.Kind != Statement && rec.Kind != Query {
			r.control(rec)
			continue
		}
		if r.res.HaltLine != 0 {
			r.res.add(RecordResult{Record: rec, Outcome: Skipped,
				Message: fmt.Sprintf("after halt at %s:%d", s.File, r.res.HaltLine)})
			continue
		}
		if c, skip := rec.Skipped(r.opts.Engine); skip {
			r.res.add(RecordResult{Record: rec, Outcome: Skipped,
				Message: fmt.Sprintf("%s at %s:%d", c, s.File, c.Line)})
			continue
		}
		if rec.Kind == Statement && r.views != nil && dropsRelation(rec.SQL) {
			r.checkViews(ctx)
		}
		if rec.Kind == Query {
			r.beforeQuery(ctx, i, rec)
		}
		rr := r.run(ctx, rec)
		if ctx.Err() != nil {
			// The record was cut short by the caller, not by its own
			// failure: it has no outcome.
			r.res.Err = ctx.Err()
			break
		}
		r.res.add(rr)
		if rr.Outcome == Failed {
			r.log(rr.Message)
		}
		if rec.Kind == Statement {
			r.afterStatement(ctx, i, rec)
		} else if rr.Outcome == Passed {
			r.afterQuery(ctx, rec, rr.values)
		}
	}
	if r.res.Err == nil {
		r.checkViews(ctx)
	}
	r.res.Elapsed = time.Since(start)
	return r.res
}

// labelHash is the result hash of a label and the query that set it.
type labelHash struct {
	hash string
	pos  string
}

// runner is the state of one RunScript call.
type runner struct {
	db     DB
	opts   Options
	res    FileResult
	logged int
	// threshold is the current hash threshold (0: never hash).
	threshold int
	// labels maps a label to the hash of its first passing query.
	labels map[string]labelHash
	script *Script
	// views is nil when the run makes no views.
	views *viewState
}

func (r *runner) control(rec *Record) {
	if r.res.HaltLine != 0 {
		return
	}
	if _, skip := rec.Skipped(r.opts.Engine); skip {
		return
	}
	switch rec.Kind {
	case HashThreshold:
		r.threshold = rec.Threshold
	case Halt:
		r.res.HaltLine = rec.Line
	}
}

func (r *runner) log(msg string) {
	if r.opts.Log == nil {
		return
	}
	r.logged++
	switch {
	case r.opts.MaxFailures == 0 || r.logged <= r.opts.MaxFailures:
		fmt.Fprintln(r.opts.Log, msg)
	case r.logged == r.opts.MaxFailures+1:
		fmt.Fprintf(r.opts.Log, "%s: more failures not shown (limit %d)\n", r.res.File, r.opts.MaxFailures)
	}
}

func (r *runner) run(ctx context.Context, rec *Record) RecordResult {
	if r.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.opts.Timeout)
		defer cancel()
	}
	start := time.Now()
	var msg string
	var got []string
	if rec.Kind == Statement {
		msg = r.statement(ctx, rec)
	} else {
		got, msg = r.query(ctx, rec)
	}
	rr := RecordResult{Record: rec, Outcome: Passed, Elapsed: time.Since(start), values: got}
	if msg != "" {
		rr.Outcome, rr.Message = Failed, msg
	}
	return rr
}

// statement runs a statement record and returns a failure message, or ""
// if it passed.
func (r *runner) statement(ctx context.Context, rec *Record) string {
	err := r.db.Exec(ctx, rec.SQL)
	switch {
	case err != nil && !rec.ExpectError:
		return failure(rec, "statement failed: "+r.errText(ctx, err), nil)
	case err == nil && rec.ExpectError:
		return failure(rec, "statement succeeded, expected an error", nil)
	case err != nil && rec.ErrorPattern != "":
		// The parser has compiled the pattern once already.
		if !regexp.MustCompile(rec.ErrorPattern).MatchString(err.Error()) {
			return failure(rec, fmt.Sprintf("error does not match %q: %s", rec.ErrorPattern, r.errText(ctx, err)), nil)
		}
	}
	return ""
}

// query runs a query record and returns its rendered, sorted values and
// a failure message, or "" if it passed.
func (r *runner) query(ctx context.Context, rec *Record) ([]string, string) {
	columns, rows, err := r.db.Query(ctx, rec.SQL)
	if err != nil {
		return nil, failure(rec, "query failed: "+r.errText(ctx, err), nil)
	}
	got, err := rec.Check(columns, rows)
	if err != nil {
		return nil, failure(rec, "wrong result: "+err.Error(), r.comparison(rec, got))
	}
	if rec.Label != "" {
		h := Hash(got)
		if seen, ok := r.labels[rec.Label]; !ok {
			r.labels[rec.Label] = labelHash{hash: h, pos: rec.Pos()}
		} else if seen.hash != h {
			return nil, failure(rec, fmt.Sprintf("%s: result hash %s differs from %s of the query at %s",
				rec.Label, h, seen.hash, seen.pos), r.comparison(rec, got))
		}
	}
	return got, ""
}

// errText describes err, saying so if the record ran out of time.
func (r *runner) errText(ctx context.Context, err error) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("timed out after %v: %v", r.opts.Timeout, err)
	}
	return err.Error()
}

// Limits of a failure message.
const (
	maxSQLBytes    = 2000
	maxShownValues = 12
)

// comparison returns the expected and the actual result of a failed
// query for its message.
func (r *runner) comparison(rec *Record, got []string) []string {
	lines := []string{"expected:"}
	if rec.Expected.Hashed {
		lines = append(lines, "    "+rec.Expected.String())
	} else {
		lines = append(lines, shown(rec.Expected.Values)...)
	}
	lines = append(lines, "got:")
	if r.threshold > 0 && len(got) > r.threshold {
		lines = append(lines, "    "+HashLine(len(got), Hash(got)))
	}
	return append(lines, shown(got)...)
}

// shown returns at most maxShownValues values, indented, and a line for
// the rest.
func shown(values []string) []string {
	if len(values) == 0 {
		return []string{"    (no values)"}
	}
	var lines []string
	for i, v := range values {
		if i == maxShownValues {
			lines = append(lines, fmt.Sprintf("    ... %d more", len(values)-i))
			break
		}
		lines = append(lines, "    "+v)
	}
	return lines
}

// failure formats a failure message: "file:line: what", the SQL
// (truncated), then the detail lines.
func failure(rec *Record, what string, detail []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", rec.Pos(), what)
	sql := rec.SQL
	if len(sql) > maxSQLBytes {
		cut := maxSQLBytes
		for cut > 0 && !utf8.RuneStart(sql[cut]) {
			cut--
		}
		sql = sql[:cut] + fmt.Sprintf(" ... (%d more bytes)", len(sql)-cut)
	}
	for _, l := range strings.Split(sql, "\n") {
		b.WriteString("    " + l + "\n")
	}
	for _, l := range detail {
		b.WriteString("  " + l + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
