package sqllogic

import (
	"fmt"
	"time"
)

// Outcome is what became of a statement or query record.
type Outcome int

const (
	// Passed: the record ran and did what the file expects.
	Passed Outcome = iota + 1
	// Failed: the record ran and did not do what the file expects, or
	// could not run.
	Failed
	// Skipped: a condition excludes the record on the engine, or a halt
	// before it stopped the file.
	Skipped
)

func (o Outcome) String() string {
	switch o {
	case Passed:
		return "pass"
	case Failed:
		return "fail"
	case Skipped:
		return "skip"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// RecordResult is the outcome of one statement or query record.
type RecordResult struct {
	Record  *Record
	Outcome Outcome
	// Message says why the record failed or was skipped; empty for a
	// pass. A failure's message starts with the record's "file:line: "
	// and shows the SQL, and for a query the expected and the actual
	// values, both truncated.
	Message string
	// Elapsed is the time the record took to run; zero for a skipped
	// record and for a view.
	Elapsed time.Duration
	// View says the result is that of the query's materialized view (see
	// ViewMode), not of the query itself.
	View bool
	// values are a passing query's rendered, sorted values.
	values []string
}

// Counts counts the outcomes of records of one kind.
type Counts struct {
	Passed, Failed, Skipped int
}

// Add returns the sum of c and d.
func (c Counts) Add(d Counts) Counts {
	return Counts{Passed: c.Passed + d.Passed, Failed: c.Failed + d.Failed, Skipped: c.Skipped + d.Skipped}
}

// Run returns the number of records that ran: Passed + Failed.
func (c Counts) Run() int { return c.Passed + c.Failed }

func (c Counts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", c.Passed, c.Failed, c.Skipped)
}

func (c *Counts) add(o Outcome) {
	switch o {
	case Passed:
		c.Passed++
	case Failed:
		c.Failed++
	case Skipped:
		c.Skipped++
	}
}

// FileResult is the outcome of running one file.
type FileResult struct {
	// File is the file's name as given to Run.
	File string
	// Records has one result per statement and query record that Run
	// reached, in file order; control records have none.
	Records []RecordResult
	// Statements and Queries count the outcomes in Records by kind, and
	// Views those of the views.
	Statements, Queries, Views Counts
	// HaltLine is the line of the halt record that stopped the file, or
	// zero if none did.
	HaltLine int
	// Err is a reason the file could not run to its end: it does not
	// parse (then Records is empty), or ctx ended (then Records stops at
	// the last record that finished). Failing records are no such
	// reason.
	Err error
	// Elapsed is the time the whole file took.
	Elapsed time.Duration
}

// Total returns the counts of statements and queries together.
func (r *FileResult) Total() Counts { return r.Statements.Add(r.Queries) }

// PassedQueries returns the lines of the query records that passed (not
// their views): the Candidates of a ViewsBefore run of the same file.
func (r *FileResult) PassedQueries() map[int]bool {
	lines := map[int]bool{}
	for _, rr := range r.Records {
		if !rr.View && rr.Record.Kind == Query && rr.Outcome == Passed {
			lines[rr.Record.Line] = true
		}
	}
	return lines
}

// Failures returns the results of the records that failed.
func (r *FileResult) Failures() []RecordResult {
	var out []RecordResult
	for _, rr := range r.Records {
		if rr.Outcome == Failed {
			out = append(out, rr)
		}
	}
	return out
}

func (r *FileResult) add(rr RecordResult) {
	rr.values = nil
	r.Records = append(r.Records, rr)
	if rr.View {
		r.Views.add(rr.Outcome)
		return
	}
	switch rr.Record.Kind {
	case Statement:
		r.Statements.add(rr.Outcome)
	case Query:
		r.Queries.add(rr.Outcome)
	}
}
