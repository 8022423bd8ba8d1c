package planner

import "freshet/repr"

// catalogFuncs are the catalog functions psql's describe queries call,
// whose value is the same for every argument in Freshet's model: every
// object is in a schema on the search path, no object has a comment,
// functions, sequences and tablespaces have no privileges to check, and
// pg_proc lists no function, so no OID names one. The arguments are
// bound for their errors and then ignored. (Privileges on relations,
// schemas and databases are catalog macros.)
var catalogFuncs = map[string]struct {
	args  []int
	value repr.Datum
	typ   repr.Type
}{
	"pg_table_is_visible":      {[]int{1}, repr.NewBool(true), repr.Bool},
	"pg_type_is_visible":       {[]int{1}, repr.NewBool(true), repr.Bool},
	"pg_function_is_visible":   {[]int{1}, repr.NewBool(true), repr.Bool},
	"pg_collation_is_visible":  {[]int{1}, repr.NewBool(true), repr.Bool},
	"pg_conversion_is_visible": {[]int{1}, repr.NewBool(true), repr.Bool},
	"pg_operator_is_visible":   {[]int{1}, repr.NewBool(true), repr.Bool},
	"pg_opclass_is_visible":    {[]int{1}, repr.NewBool(true), repr.Bool},
	"has_function_privilege":   {[]int{2, 3}, repr.NewBool(true), repr.Bool},
	"has_sequence_privilege":   {[]int{2, 3}, repr.NewBool(true), repr.Bool},
	"has_tablespace_privilege": {[]int{2, 3}, repr.NewBool(true), repr.Bool},
	// The tablespaces are PostgreSQL's built-in ones, in the data
	// directory, whose location PostgreSQL gives as "".
	"pg_tablespace_location":             {[]int{1}, repr.NewText(""), repr.Text},
	"shobj_description":                  {[]int{2}, repr.Null, repr.Text},
	"pg_get_function_result":             {[]int{1}, repr.Null, repr.Text},
	"pg_get_function_arguments":          {[]int{1}, repr.Null, repr.Text},
	"pg_get_function_identity_arguments": {[]int{1}, repr.Null, repr.Text},
	// Freshet has no sequences, no extended statistics and no
	// publications.
	"pg_get_serial_sequence": {[]int{2}, repr.Null, repr.Text},
	// pg_rewrite is empty: no OID names a rule.
	"pg_get_ruledef":                  {[]int{1, 2}, repr.Null, repr.Text},
	"pg_get_statisticsobjdef_columns": {[]int{1}, repr.Null, repr.Text},
	"pg_relation_is_publishable":      {[]int{1}, repr.NewBool(false), repr.Bool},
}

// bindCatalogFunc binds a function of catalogFuncs; ok is false for any
// other name.
func bindCatalogFunc(name string, args []hscalar) (s hscalar, ok bool, err error) {
	f, known := catalogFuncs[name]
	if !known {
		return nil, false, nil
	}
	for _, n := range f.args {
		if n == len(args) {
			return hLiteral{v: f.value, t: f.typ}, true, nil
		}
	}
	return nil, true, errNoFunction(name, args)
}
