package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/repr"
	"freshet/sqlerr"
)

// Freshet compares and sorts text bytewise, which is PostgreSQL's "C"
// collation. So the collations that mean bytewise order ("C", "POSIX")
// and the database default (which Freshet defines as "C") are accepted
// as no-ops, and every other name does not exist, as it would not in a
// database created with only those.
var bytewiseCollations = map[string]bool{"default": true, "C": true, "POSIX": true}

// bindCollate binds expr COLLATE name. The collation changes nothing, so
// the result is the bound operand; an untyped literal becomes text, as in
// PostgreSQL.
func (b *binder) bindCollate(cc *pg.CollateClause, c *exprCtx) (hscalar, error) {
	arg, err := b.bindExpr(cc.Arg, c)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range cc.Collname {
		names = append(names, n.GetString_().GetSval())
	}
	name := ""
	if len(names) > 0 {
		name = names[len(names)-1]
	}
	qualifiedOK := len(names) == 1 || (len(names) == 2 && names[0] == "pg_catalog")
	if !qualifiedOK || !bytewiseCollations[name] {
		return nil, errorAt(sqlerr.New(sqlerr.UndefinedObject,
			"collation %q for encoding \"UTF8\" does not exist", strings.Join(names, ".")), b.sql, cc.Location)
	}
	switch arg.typ().Type.Kind() {
	case repr.KindUnknown:
		return b.coerceTo(arg, repr.Text)
	case repr.KindText, repr.KindVarchar, repr.KindBpchar, repr.KindName:
		return arg, nil
	}
	return nil, errorAt(sqlerr.New(sqlerr.DatatypeMismatch,
		"collations are not supported by type %s", arg.typ().Type), b.sql, cc.Location)
}
