package planner

import (
	"freshet/expr"
	"freshet/repr"
)

// Statement is a planned statement: one of the types of this file.
type Statement interface {
	// Tag returns the statement's command name as PostgreSQL's
	// CommandComplete tag begins ("SELECT", "CREATE TABLE", ...).
	Tag() string
}

// Column is one output column of a query or view.
type Column struct {
	Name     string
	Type     repr.Type
	Nullable bool
	// Source is the table or materialized view column a query's output
	// column comes straight from, or zero.
	Source ColumnSource
}

// Select is a query: Plan computes its rows as a collection, and
// Finishing orders, limits and projects them when they are read.
type Select struct {
	// Plan is the decorrelated plan. Its columns are the visible columns
	// followed by any columns that only ORDER BY needs.
	Plan      expr.Relation
	Finishing Finishing
	// Columns describes the visible output columns (Finishing.Project).
	Columns []Column
}

// Finishing is what a top-level ORDER BY, LIMIT and OFFSET do: they act
// on the rows of a read, not in the dataflow (a view or subquery that
// needs them gets a TopK instead).
type Finishing struct {
	// OrderBy sorts the rows; ties are broken by the whole row, so the
	// order is deterministic.
	OrderBy []expr.ColumnOrder
	// Limit is the most rows returned; negative means no limit.
	Limit int64
	// Offset is how many leading rows are skipped.
	Offset int64
	// Project lists the plan's columns that the client sees, in order.
	Project []int
}

// CreateTable is CREATE TABLE.
type CreateTable struct {
	Name    QualifiedName
	Columns []ColumnDef
	// UniqueKeys are the table's PRIMARY KEY and UNIQUE constraints, the
	// primary key first, then the others as written; a constraint that
	// repeats an earlier one's columns is left out, as PostgreSQL does.
	UniqueKeys  []UniqueKey
	IfNotExists bool
	// Temp makes the table in the session's temporary schema, dropped
	// when the session ends (CREATE TEMPORARY TABLE, or pg_temp.name).
	Temp bool
}

// UniqueKey is a PRIMARY KEY or UNIQUE constraint of CREATE TABLE: no
// two rows may hold equal values in all its columns unless one of them is
// NULL.
type UniqueKey struct {
	// Name is the constraint's name: the CONSTRAINT clause's, or the one
	// PostgreSQL generates (t_pkey, t_a_key, t_a_b_key), made unique
	// among the table's keys.
	Name string
	// Columns are the key's columns, as positions in CreateTable.Columns,
	// in key order. Invariant: not empty, no position twice.
	Columns []int
	// Primary reports the PRIMARY KEY, whose columns are NOT NULL.
	Primary bool
}

// ColumnDef is a column of CREATE TABLE.
type ColumnDef struct {
	Name string
	Type repr.Type
	// NotNull is set by NOT NULL and by PRIMARY KEY.
	NotNull bool
	// Default is the DEFAULT expression, a scalar over no columns, or nil
	// for NULL.
	Default expr.Scalar
	// Sequence, for a serial or identity column, is the sequence the
	// column takes its values from, which the table owns; the column's
	// default is then its nextval (the coordinator writes it, once the
	// sequence exists).
	Sequence *SequenceDef
	// Identity is 'a' for GENERATED ALWAYS AS IDENTITY, 'd' for BY
	// DEFAULT, 0 for neither.
	Identity byte
}

// CreateView is CREATE [MATERIALIZED] VIEW.
type CreateView struct {
	Name QualifiedName
	// Plan computes the view. An ORDER BY without LIMIT or OFFSET in the
	// definition is dropped; with them it is a TopK.
	Plan         expr.Relation
	Columns      []Column
	Materialized bool
	IfNotExists  bool
	OrReplace    bool
	// Temp makes the view in the session's temporary schema (CREATE
	// TEMPORARY VIEW).
	Temp bool
	// Query is the defining query as SQL, for the catalog to keep and to
	// return as Relation.SQL.
	Query string
	// Reads are the catalog relations the definition reads, the views it
	// inlines and what they read included: the view's dependencies.
	Reads []Read
	// Enums are the OIDs of the enum types the definition names.
	Enums []uint32
}

// CreateIndex is CREATE INDEX.
type CreateIndex struct {
	// Name is the index name, PostgreSQL's generated one if the statement
	// has none.
	Name string
	// On is the indexed relation.
	On     QualifiedName
	OnID   expr.GlobalID
	OnKind RelationKind
	// Keys are scalars over the relation's columns; plain columns
	// (expr.Column) for a unique index.
	Keys []expr.Scalar
	// Unique is CREATE UNIQUE INDEX: its keys become a unique key of the
	// table.
	Unique      bool
	IfNotExists bool
	// Enums are the OIDs of the enum types the keys name.
	Enums []uint32
}

// Target is the table that INSERT, UPDATE, DELETE or COPY writes.
type Target struct {
	ID      expr.GlobalID
	Name    QualifiedName
	Columns []Column
	// Shape is the table's shape generation when the statement was
	// planned (Relation.Shape).
	Shape uint64
}

// Insert is INSERT. Plan produces the rows to insert, whole rows in the
// table's column order, with defaults filled in and values cast to the
// column types. Evaluating it raises 23502 for a NULL in a NOT NULL
// column.
type Insert struct {
	Table Target
	Plan  expr.Relation
	// Returning is the RETURNING list over the rows inserted, or nil.
	Returning *Returning
	// OnConflict is the ON CONFLICT clause, or nil.
	OnConflict *OnConflict
}

// Update is UPDATE. Plan produces, for every row to change, the old row
// followed by the new row (2n columns for a table of n): the writer
// retracts the first half and inserts the second. Evaluating it raises
// 23502 for a NULL in a NOT NULL column.
type Update struct {
	Table Target
	Plan  expr.Relation
	// Returning is the RETURNING list over the new rows, or nil.
	Returning *Returning
}

// Delete is DELETE. Plan produces the rows to retract, whole rows with
// their multiplicities.
type Delete struct {
	Table Target
	Plan  expr.Relation
	// Returning is the RETURNING list over the rows deleted, or nil.
	Returning *Returning
}

// Copy is COPY table [(columns)] FROM STDIN.
type Copy struct {
	Table Target
	// Columns are the table columns the data holds, in the data's order.
	Columns []int
	Options CopyOptions
	// Labels holds, per entry of Columns, the labels of the column's
	// enum type (of an enum or an array of one) as the statement was
	// planned, and nil for columns of other types: reading a field as an
	// enum needs them (ParseField).
	Labels []*repr.EnumLabels
	// defaults are the table's defaults, per column (nil for NULL).
	defaults []expr.Scalar
}

// CopyOptions are the options of COPY, with PostgreSQL's defaults
// filled in for the format.
type CopyOptions struct {
	// Format is "text", "csv" or "binary"; binary has no delimiter,
	// NULL string, header, quote or escape.
	Format    string
	Delimiter string
	Null      string
	Header    bool
	// HeaderMatch reports whether COPY FROM checks the header line's
	// names against the columns (HEADER MATCH); Header is then true.
	HeaderMatch bool
	Quote       string
	Escape      string
	// ForceNotNull and ForceNull flag, per column of COPY FROM's data
	// (Copy.Columns), the columns of CSV's FORCE_NOT_NULL and
	// FORCE_NULL; nil when the option is not given.
	ForceNotNull, ForceNull []bool
	// ForceQuote flags, per output column of COPY TO in CSV, the columns
	// whose non-NULL values are always quoted (FORCE_QUOTE); ForceQuoteAll
	// quotes every column's (FORCE_QUOTE *).
	ForceQuote    []bool
	ForceQuoteAll bool
}

// CopyTo is COPY (query) TO STDOUT or COPY table TO STDOUT.
type CopyTo struct {
	Query   *Select
	Options CopyOptions
}

// ObjectKind is the kind of object that DROP names.
type ObjectKind uint8

// The kinds of object DROP handles.
const (
	ObjectTable ObjectKind = iota + 1
	ObjectView
	ObjectMaterializedView
	ObjectIndex
	ObjectSequence
)

var objectKindNames = map[ObjectKind]string{
	ObjectTable: "TABLE", ObjectView: "VIEW", ObjectMaterializedView: "MATERIALIZED VIEW", ObjectIndex: "INDEX",
	ObjectSequence: "SEQUENCE",
}

func (k ObjectKind) String() string { return objectKindNames[k] }

// Drop is DROP TABLE, VIEW, MATERIALIZED VIEW or INDEX.
type Drop struct {
	Kind     ObjectKind
	Names    []QualifiedName
	IfExists bool
	Cascade  bool
}

// CreateDatabase is CREATE DATABASE.
type CreateDatabase struct {
	Name        string
	IfNotExists bool
}

// DropDatabase is DROP DATABASE.
type DropDatabase struct {
	Name     string
	IfExists bool
}

// Set is SET name = value (or TO value). Value is the value as text;
// a list is joined with ", ".
type Set struct {
	Name  string
	Value string
	// Local is SET LOCAL: the setting lasts until the end of the
	// transaction.
	Local bool
}

// Reset is RESET name, SET name TO DEFAULT, or RESET ALL (Name "all").
type Reset struct {
	Name string
	// Local is SET LOCAL name TO DEFAULT.
	Local bool
	// Set reports whether the statement was SET ... TO DEFAULT, whose
	// tag is SET.
	Set bool
}

// Discard is DISCARD ALL, PLANS, SEQUENCES or TEMP (What).
type Discard struct{ What string }

// Show is SHOW name, or SHOW ALL (Name "all").
type Show struct{ Name string }

// Begin is BEGIN or START TRANSACTION.
type Begin struct {
	// Isolation is the isolation level the statement asks for
	// ("serializable", ...), or empty for the session's.
	Isolation string
	// ReadOnly is READ ONLY.
	ReadOnly bool
}

// Commit is COMMIT or END.
type Commit struct{}

// Rollback is ROLLBACK or ABORT.
type Rollback struct{}

// Explain is EXPLAIN of a statement.
type Explain struct {
	Inner Statement
	// Analyze runs the query and reports its rows and time.
	Analyze bool
	// Format is "text" or "json".
	Format string
}

// Tag implements Statement.
func (*Select) Tag() string { return "SELECT" }

// Tag implements Statement.
func (*CreateTable) Tag() string { return "CREATE TABLE" }

// Tag implements Statement.
func (s *CreateView) Tag() string {
	if s.Materialized {
		return "CREATE MATERIALIZED VIEW"
	}
	return "CREATE VIEW"
}

// Tag implements Statement.
func (*CreateIndex) Tag() string { return "CREATE INDEX" }

// Tag implements Statement.
func (*Insert) Tag() string { return "INSERT" }

// Tag implements Statement.
func (*Update) Tag() string { return "UPDATE" }

// Tag implements Statement.
func (*Delete) Tag() string { return "DELETE" }

// Tag implements Statement.
func (*Copy) Tag() string { return "COPY" }

// Tag implements Statement.
func (*CopyTo) Tag() string { return "COPY" }

// Tag implements Statement.
func (s *Drop) Tag() string { return "DROP " + s.Kind.String() }

// Tag implements Statement.
func (*CreateDatabase) Tag() string { return "CREATE DATABASE" }

// Tag implements Statement.
func (*DropDatabase) Tag() string { return "DROP DATABASE" }

// Tag implements Statement.
func (*Set) Tag() string { return "SET" }

// Tag implements Statement.
func (s *Reset) Tag() string {
	if s.Set {
		return "SET"
	}
	return "RESET"
}

// Tag implements Statement.
func (s *Discard) Tag() string { return "DISCARD " + s.What }

// Tag implements Statement.
func (*Show) Tag() string { return "SHOW" }

// Tag implements Statement.
func (*Begin) Tag() string { return "BEGIN" }

// Tag implements Statement.
func (*Commit) Tag() string { return "COMMIT" }

// Tag implements Statement.
func (*Rollback) Tag() string { return "ROLLBACK" }

// Tag implements Statement.
func (*Explain) Tag() string { return "EXPLAIN" }
