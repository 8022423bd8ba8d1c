package planner

import (
	"fmt"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"

	"freshet/sqlerr"
)

// catalogMacros are the catalog functions whose value is read from a
// built-in relation: a call is bound as the scalar subquery its template
// gives for its number of arguments, with $1, $2, … standing for the
// call's arguments. pg_catalog.freshet_definitions holds the texts the
// pg_get_*def functions return (coord/builtin_defs.go); a name or OID
// it does not hold gives NULL, as PostgreSQL's functions do for an OID
// that names no object.
var catalogMacros = map[string]map[int]string{
	// A role's name by its OID; PostgreSQL names an OID that is no
	// role's "unknown (OID=n)".
	"pg_get_userbyid": {
		1: "SELECT coalesce(max(rolname), ('unknown (OID=' || $1::text || ')')::name) FROM pg_catalog.pg_roles WHERE oid = $1",
	},
	// The comments of COMMENT ON, from pg_description: an object's by
	// its OID and catalog (or any catalog, for the one-argument form,
	// which PostgreSQL deprecates), a column's by its table and number.
	"obj_description": {
		1: "SELECT min(description) FROM pg_catalog.pg_description WHERE objoid = $1 AND objsubid = 0",
		2: "SELECT min(description) FROM pg_catalog.pg_description WHERE objoid = $1 AND classoid = ($2)::regclass AND objsubid = 0",
	},
	"col_description": {
		2: "SELECT min(description) FROM pg_catalog.pg_description WHERE objoid = $1 AND classoid = 'pg_catalog.pg_class'::regclass AND objsubid = $2",
	},
	"pg_get_viewdef": {
		1: "SELECT definition FROM pg_catalog.freshet_definitions WHERE oid = $1 AND kind = 'v' AND n = 0",
		// The second argument asks for pretty-printing; Freshet
		// returns the text the view was created with either way.
		2: "SELECT definition FROM pg_catalog.freshet_definitions WHERE oid = $1 AND kind = 'v' AND n = 0 AND $2 IS NOT NULL",
	},
	"pg_get_indexdef": {
		1: "SELECT definition FROM pg_catalog.freshet_definitions WHERE oid = $1 AND kind = 'i' AND n = 0",
		// pg_get_indexdef(index, column, pretty): column 0 is the whole
		// CREATE INDEX, column k the k-th key.
		3: "SELECT definition FROM pg_catalog.freshet_definitions WHERE oid = $1 AND kind = 'i' AND n = $2 AND $3 IS NOT NULL",
	},
	"pg_get_constraintdef": {
		1: "SELECT definition FROM pg_catalog.freshet_definitions WHERE oid = $1 AND kind = 'c' AND n = 0",
		2: "SELECT definition FROM pg_catalog.freshet_definitions WHERE oid = $1 AND kind = 'c' AND n = 0 AND $2 IS NOT NULL",
	},
}

// privilegeMacro is the template of has_*_privilege(user, object,
// privilege) for objects of kind ('r' relations, 'n' schemas, 'd'
// databases), with the three arguments' SQL: a superuser, or a session
// user who is no role (which trust authentication lets in with every
// privilege), holds every privilege; anyone else those that
// pg_catalog.freshet_privileges lists for them or PUBLIC. The object is
// an OID or a name, plain (folded to lower case) or quoted, with its
// schema or without; the privileges a comma-separated list, any of which
// is enough, as in PostgreSQL. A user given by OID is matched as a
// superuser only. An object that does not exist gives false.
func privilegeMacro(kind, user, object, privilege string) string {
	return fmt.Sprintf(`SELECT NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE (%[1]s)::text IN (r.rolname::text, r.oid::text) AND NOT r.rolsuper)
		OR EXISTS (SELECT 1 FROM pg_catalog.freshet_privileges p WHERE p.kind = '%[2]s'
			AND ((%[3]s)::text IN (p.oid::text, p.quoted, p.quotedqualified) OR lower((%[3]s)::text) IN (p.name, p.qualified))
			AND (p.role = '' OR p.role::text = (%[1]s)::text)
			AND p.privilege = ANY (string_to_array(upper(replace((%[4]s)::text, ' ', '')), ',')))`, user, kind, object, privilege)
}

func init() {
	for name, kind := range map[string]string{
		"has_table_privilege": "r", "has_any_column_privilege": "r",
		"has_schema_privilege": "n", "has_database_privilege": "d",
	} {
		catalogMacros[name] = map[int]string{
			2: privilegeMacro(kind, "current_user", "$1", "$2"),
			3: privilegeMacro(kind, "$1", "$2", "$3"),
		}
	}
	// Freshet has no column privileges: a column's are its table's.
	catalogMacros["has_column_privilege"] = map[int]string{
		3: privilegeMacro("r", "current_user", "$1", "$3") + " AND $2 IS NOT NULL",
		4: privilegeMacro("r", "$1", "$2", "$4") + " AND $3 IS NOT NULL",
	}
}

// bindCatalogMacro binds a call of a function of catalogMacros as its
// scalar subquery; ok is false for any other name. The arguments are
// bound first, in the caller's scope, so that the template's own column
// names can never capture them; each $n of the template is then the n-th
// argument, seen from inside the subquery.
func (b *binder) bindCatalogMacro(name string, fc *pg.FuncCall, c *exprCtx) (s hscalar, ok bool, err error) {
	if _, known := catalogMacros[name]; !known {
		return nil, false, nil
	}
	args := make([]hscalar, 0, len(fc.Args))
	for _, a := range fc.Args {
		s, err := b.bindExpr(a, c)
		if err != nil {
			return nil, true, err
		}
		args = append(args, s)
	}
	sql, found := catalogMacros[name][len(args)]
	if !found {
		return nil, true, errNoFunction(name, args)
	}
	s, err = b.bindMacroSQL(sql, args, c, fc.Location)
	return s, true, err
}

// macroTrees caches the parsed templates, by their text.
var macroTrees sync.Map

// bindMacroSQL binds the template sql, a SELECT of one value, as a
// scalar subquery whose $n are args (bound in c's scope).
func (b *binder) bindMacroSQL(sql string, args []hscalar, c *exprCtx, loc int32) (hscalar, error) {
	tmpl, ok := macroTrees.Load(sql)
	if !ok {
		tree, err := pg.Parse(sql)
		if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
			return nil, sqlerr.AssertionFailedf("catalog macro does not parse: %s", sql)
		}
		tmpl, _ = macroTrees.LoadOrStore(sql, tree.Stmts[0].Stmt.GetSelectStmt())
	}
	link := &pg.Node{Node: &pg.Node_SubLink{SubLink: &pg.SubLink{
		SubLinkType: pg.SubLinkType_EXPR_SUBLINK,
		Subselect:   &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: proto.Clone(tmpl.(*pg.SelectStmt)).(*pg.SelectStmt)}},
		Location:    loc,
	}}}
	saved := b.macroArgs
	b.macroArgs = args
	defer func() { b.macroArgs = saved }()
	return b.bindExpr(link, c)
}

// macroArg is $n of a catalog macro's template: the n-th argument of the
// call, lifted into the subquery it is read in (enterSubquery).
func (b *binder) macroArg(n int) (hscalar, error) {
	if n < 1 || n > len(b.macroArgs) {
		return nil, sqlerr.AssertionFailedf("catalog macro reads $%d of %d arguments", n, len(b.macroArgs))
	}
	return b.macroArgs[n-1], nil
}

// enterSubquery is called as a subquery's binding starts, and the
// function it returns as it ends. A catalog macro's arguments were bound
// outside the template; each subquery level between them and where they
// are read lifts them one level, the template's own subquery included.
func (b *binder) enterSubquery() (leave func()) {
	if b.macroArgs == nil {
		return func() {}
	}
	saved := b.macroArgs
	lifted := make([]hscalar, len(saved))
	for i, a := range saved {
		lifted[i] = lift(a)
	}
	b.macroArgs = lifted
	return func() { b.macroArgs = saved }
}
