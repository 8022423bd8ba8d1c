package planner

import (
	"fmt"
	"runtime"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
)

// PostgresVersion is the PostgreSQL release whose behaviour Freshet
// follows; it leads version(), which drivers parse ("PostgreSQL 15.0"),
// and must agree with the server_version the server reports.
const PostgresVersion = "15.0"

// version is version()'s value. PostgreSQL's is fixed for a server
// build, so it is a constant here too and may appear in views.
var version = fmt.Sprintf("PostgreSQL %s (Freshet) on %s-%s, compiled by %s, 64-bit",
	PostgresVersion, runtime.GOARCH, runtime.GOOS, runtime.Version())

// sessionValueFunctions are the SQL value functions (called without
// parentheses) that name the session's user, database or schema.
var sessionValueFunctions = map[pg.SQLValueFunctionOp]expr.VariadicFunc{
	pg.SQLValueFunctionOp_SVFOP_CURRENT_USER:    expr.CurrentUser,
	pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:    expr.CurrentUser,
	pg.SQLValueFunctionOp_SVFOP_USER:            expr.CurrentUser,
	pg.SQLValueFunctionOp_SVFOP_SESSION_USER:    expr.SessionUser,
	pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG: expr.CurrentDatabase,
	pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:  expr.CurrentSchema,
}

// sessionFuncSignatures are the argument types of the functions of
// bindSessionFunc, by name and argument count.
var sessionFuncSignatures = map[string]map[int][]repr.Type{
	"current_database":         {0: nil},
	"current_schema":           {0: nil},
	"current_setting":          {1: {repr.Text}, 2: {repr.Text, repr.Bool}},
	"set_config":               {3: {repr.Text, repr.Text, repr.Bool}},
	"pg_backend_pid":           {0: nil},
	"pg_postmaster_start_time": {0: nil},
	"pg_cancel_backend":        {1: {repr.Int4}},
	"pg_terminate_backend":     {1: {repr.Int4}},
	"pg_encoding_to_char":      {1: {repr.Int4}},
	"quote_ident":              {1: {repr.Text}},
	"nextval":                  {1: {repr.Regclass}},
	"currval":                  {1: {repr.Regclass}},
	"setval":                   {2: {repr.Regclass, repr.Int8}, 3: {repr.Regclass, repr.Int8, repr.Bool}},
	"lastval":                  {0: nil},
	"version":                  {0: nil},
	"pg_relation_size":         {1: {repr.Regclass}, 2: {repr.Regclass, repr.Text}},
	"pg_table_size":            {1: {repr.Regclass}},
	"pg_indexes_size":          {1: {repr.Regclass}},
	"pg_total_relation_size":   {1: {repr.Regclass}},
	"pg_database_size":         {1: {repr.Name}},
	"pg_size_pretty":           {1: {repr.Int8}},
}

var sessionFuncs = map[string]expr.VariadicFunc{
	"current_database": expr.CurrentDatabase, "current_schema": expr.CurrentSchema,
	"current_setting": expr.CurrentSetting, "set_config": expr.SetConfig,
	"pg_backend_pid": expr.BackendPID, "pg_postmaster_start_time": expr.PostmasterStartTime,
	"pg_encoding_to_char": expr.EncodingToChar, "quote_ident": expr.QuoteIdent,
	"pg_cancel_backend": expr.CancelBackend, "pg_terminate_backend": expr.TerminateBackend,
	"nextval": expr.NextVal, "currval": expr.CurrVal, "setval": expr.SetVal, "lastval": expr.LastVal,
	"pg_relation_size": expr.RelationSize, "pg_table_size": expr.TableSize, "pg_indexes_size": expr.IndexesSize,
	"pg_total_relation_size": expr.TotalRelationSize, "pg_database_size": expr.DatabaseSize, "pg_size_pretty": expr.SizePretty,
}

// bindSessionFunc binds the functions that describe the server and the
// session (version(), current_setting(), ...) and the two pure ones that
// catalog queries use with them. ok is false for any other name.
func (b *binder) bindSessionFunc(name string, args []hscalar) (s hscalar, ok bool, err error) {
	sigs, known := sessionFuncSignatures[name]
	if !known {
		return nil, false, nil
	}
	types, ok := sigs[len(args)]
	if !ok {
		return nil, true, errNoFunction(name, args)
	}
	if name == "version" {
		return hLiteral{v: repr.NewText(version), t: repr.Text}, true, nil
	}
	if name == "current_database" {
		if lit, ok := b.databaseLiteral(); ok {
			return lit, true, nil
		}
	}
	targs := make([]hscalar, len(args))
	for i, a := range args {
		if targs[i], err = b.coerceTo(a, types[i]); err != nil {
			if a.typ().Type.Kind() == repr.KindUnknown {
				// A string literal is read as the parameter's type, and
				// its input error (no such relation, …) is the error.
				return nil, true, err
			}
			return nil, true, errNoFunction(name, args)
		}
	}
	fn := sessionFuncs[name]
	t := expr.CallVariadic{Func: fn}.Typ(nil)
	if !fn.IsSession() {
		// quote_ident (text) and pg_encoding_to_char (name): NULL in,
		// NULL out.
		t.Nullable = true
	}
	return hVariadic{fn: fn, args: targs, t: t}, true, nil
}
