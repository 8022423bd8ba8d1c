package sqllogic

import "fmt"

// Kind is what a record asks the runner to do.
type Kind int

const (
	// Statement runs SQL and expects it to succeed or to fail.
	Statement Kind = iota + 1
	// Query runs SQL and compares its result with the expected values.
	Query
	// HashThreshold sets the number of values above which a result is
	// written as a hash (Record.Threshold).
	HashThreshold
	// Halt stops the file: no record after it runs.
	Halt
)

func (k Kind) String() string {
	switch k {
	case Statement:
		return "statement"
	case Query:
		return "query"
	case HashThreshold:
		return "hash-threshold"
	case Halt:
		return "halt"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ColumnType is the letter that says how a query column is rendered.
type ColumnType byte

const (
	// Integer renders a value as a decimal integer, truncated toward zero.
	Integer ColumnType = 'I'
	// Real renders a value with three digits after the point.
	Real ColumnType = 'R'
	// Text renders a value as its text, with non-printable bytes as '@'.
	Text ColumnType = 'T'
)

// SortMode is how a query's result is ordered before it is compared.
type SortMode int

const (
	// NoSort compares rows in the order the server returned them: the
	// query has an ORDER BY or returns at most one row. It is the default.
	NoSort SortMode = iota
	// RowSort sorts rows, comparing their rendered values column by
	// column as byte strings (so "10" sorts before "9").
	RowSort
	// ValueSort sorts all values of the result individually, ignoring
	// rows.
	ValueSort
)

var sortModeNames = [...]string{NoSort: "nosort", RowSort: "rowsort", ValueSort: "valuesort"}

func (m SortMode) String() string {
	if m >= 0 && int(m) < len(sortModeNames) {
		return sortModeNames[m]
	}
	return fmt.Sprintf("SortMode(%d)", int(m))
}

// Condition is a skipif or onlyif line in front of a record.
type Condition struct {
	// Only is true for onlyif (run only on Engine), false for skipif
	// (run everywhere but on Engine).
	Only bool
	// Engine is the engine name, such as postgresql, sqlite or mysql.
	Engine string
	// Line is the condition's line in the file.
	Line int
}

func (c Condition) String() string {
	if c.Only {
		return "onlyif " + c.Engine
	}
	return "skipif " + c.Engine
}

// Excludes reports whether the condition keeps its record from running
// on engine.
func (c Condition) Excludes(engine string) bool {
	return c.Only != (c.Engine == engine)
}

// Expected is the result a query record expects. The zero value expects
// an empty result.
type Expected struct {
	// Hashed reports whether the file stores the result as one line
	// "<Count> values hashing to <Hash>" instead of the values.
	Hashed bool
	// Values are the expected rendered values, one per line of the file,
	// row-major and already in the record's sort order. Empty if Hashed.
	Values []string
	// Count is the number of values, when Hashed.
	Count int
	// Hash is the lowercase hex MD5 of the values (see Hash), when Hashed.
	Hash string
	// Line is the line of the first expected value (or of the hash), or
	// zero when the record has no "----" line.
	Line int
}

// Record is one record of a sqllogictest file: a statement, a query or a
// control record, with the conditions written in front of it.
type Record struct {
	Kind Kind
	// File is the name of the file the record comes from, as given to
	// Parse.
	File string
	// Line is the first line of the record, counted from 1: its first
	// condition, or its header (the "statement", "query",
	// "hash-threshold" or "halt" line) if it has none. Messages cite
	// records as File:Line, as the corpus's PG15_DIVERGENCES.tsv does.
	Line int
	// Conditions are the skipif and onlyif lines in front of the record,
	// in file order.
	Conditions []Condition

	// SQL is the statement or query text, its lines joined with "\n",
	// exactly as written (a trailing semicolon is kept).
	SQL string

	// ExpectError reports whether a statement must fail ("statement
	// error").
	ExpectError bool
	// ErrorPattern, if not empty, is a regular expression that the
	// error's text must match ("statement error <pattern>"). The error
	// text of a server error through Conn is "ERROR: <message> (SQLSTATE
	// <code>)", so a pattern may name the SQLSTATE.
	ErrorPattern string

	// Types has one column type per result column of a query.
	Types []ColumnType
	// Sort is the query's sort mode.
	Sort SortMode
	// Label, if not empty, names a group of queries in the file that
	// must all produce the same result hash.
	Label string
	// Expected is the query's expected result.
	Expected Expected

	// Threshold is the value of a hash-threshold record.
	Threshold int
}

// Pos returns "file:line" for the record.
func (r *Record) Pos() string {
	return fmt.Sprintf("%s:%d", r.File, r.Line)
}

// Skipped returns the first condition that keeps the record from running
// on engine, and whether there is one.
func (r *Record) Skipped(engine string) (Condition, bool) {
	for _, c := range r.Conditions {
		if c.Excludes(engine) {
			return c, true
		}
	}
	return Condition{}, false
}
