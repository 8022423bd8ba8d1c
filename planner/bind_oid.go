package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/repr"
	"freshet/sqlerr"
)

// OIDResolver is what a Catalog implements to read the reg* types from
// names: 'orders'::regclass, 'public'::regnamespace. kind is one of
// repr's reg* kinds other than regtype, which the planner reads itself.
// A name that names nothing is the error PostgreSQL gives (42P01
// relation "x" does not exist, 42704 for the others).
type OIDResolver interface {
	ResolveOID(kind repr.Kind, name string) (uint32, error)
}

// parseLiteral reads the text of an untyped literal as type t. A reg*
// literal that is not a number is a name, looked up in the catalog as
// the statement is planned.
func (b *binder) parseLiteral(t repr.Type, text string) (repr.Datum, error) {
	k := t.Kind()
	if t.EnumOID() != 0 {
		// An enum or an array of one: the labels are read as they are
		// now.
		l, err := b.enumLabels(t)
		if err != nil {
			return repr.Null, err
		}
		return repr.ParseTextLabels(t, text, b.zone(), l)
	}
	if !k.IsOIDKind() || k == repr.KindOID {
		return repr.ParseTextIn(t, text, b.zone())
	}
	trimmed := strings.TrimSpace(text)
	if trimmed == "-" || (trimmed != "" && strings.ContainsAny(trimmed[:1], "+-0123456789")) {
		return repr.ParseText(t, text)
	}
	if k == repr.KindRegtype {
		tn, err := parseTypeName(trimmed)
		if err != nil {
			return repr.Null, err
		}
		typ, err := b.typeFromName(tn)
		if err != nil {
			return repr.Null, sqlerr.New(sqlerr.UndefinedObject, "type %q does not exist", trimmed)
		}
		return repr.NewOID(k, typ.OID()), nil
	}
	r, ok := b.cat.(OIDResolver)
	if !ok {
		return repr.Null, unsupported("reading a %s from a name", t)
	}
	oid, err := r.ResolveOID(k, trimmed)
	if err != nil {
		return repr.Null, err
	}
	return repr.NewOID(k, oid), nil
}

// parseTypeName parses a type name as SQL spells it ("integer",
// "character varying(10)", "pg_catalog.int4", "text[]").
func parseTypeName(name string) (*pg.TypeName, error) {
	tree, err := pg.Parse("SELECT NULL::" + name)
	if err == nil && len(tree.Stmts) == 1 {
		if sel := tree.Stmts[0].Stmt.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
			if tc := sel.TargetList[0].GetResTarget().GetVal().GetTypeCast(); tc != nil {
				return tc.TypeName, nil
			}
		}
	}
	return nil, sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid type name %q", name)
}

// regTextSQL are the macro templates (bind_catalog_macros.go) that print
// a reg* value as PostgreSQL does: the object's name, "-" for 0, and the
// number for an OID that names nothing.
var regTextSQL = map[repr.Kind]string{
	repr.KindRegclass: `SELECT CASE WHEN $1 = 0 THEN '-' ELSE coalesce(quote_ident(c.relname), ($1)::oid::text) END
		FROM (SELECT 1) AS one LEFT JOIN pg_catalog.pg_class c ON c.oid = $1`,
	repr.KindRegtype: `SELECT CASE WHEN $1 = 0 THEN '-' ELSE coalesce(format_type(t.oid, NULL), ($1)::oid::text) END
		FROM (SELECT 1) AS one LEFT JOIN pg_catalog.pg_type t ON t.oid = $1`,
	repr.KindRegnamespace: `SELECT CASE WHEN $1 = 0 THEN '-' ELSE coalesce(quote_ident(n.nspname), ($1)::oid::text) END
		FROM (SELECT 1) AS one LEFT JOIN pg_catalog.pg_namespace n ON n.oid = $1`,
	repr.KindRegrole: `SELECT CASE WHEN $1 = 0 THEN '-' ELSE coalesce(quote_ident(r.rolname), ($1)::oid::text) END
		FROM (SELECT 1) AS one LEFT JOIN pg_catalog.pg_roles r ON r.oid = $1`,
	repr.KindRegproc: `SELECT CASE WHEN $1 = 0 THEN '-' ELSE coalesce(p.proname::text, ($1)::oid::text) END
		FROM (SELECT 1) AS one LEFT JOIN pg_catalog.pg_proc p ON p.oid = $1`,
}

// regText is s, a reg* value, as text: the name of the object it
// identifies, read from the catalog relations.
func (b *binder) regText(s hscalar) (hscalar, error) {
	sql, ok := regTextSQL[s.typ().Type.Kind()]
	if !ok {
		return nil, sqlerr.AssertionFailedf("regText of %s", s.typ().Type)
	}
	return b.bindMacroSQL(sql, []hscalar{s}, &exprCtx{scope: &scope{}, clause: "SELECT"}, 0)
}

// printRegOutputs gives a top-level query's visible columns of a reg*
// type as PostgreSQL prints them to a client: text, the objects' names.
// The names are appended as columns of their own and project replaces
// the visible columns with them, so that ORDER BY still sorts by the
// OIDs, as in PostgreSQL.
func (b *binder) printRegOutputs(q *boundQuery) (out *boundQuery, project []int, err error) {
	types := q.rel.types()
	project = seq(0, q.visible)
	exprs := make([]hscalar, len(types))
	for i, t := range types {
		exprs[i] = hColumn{level: 0, index: i, t: t}
	}
	for i := 0; i < q.visible; i++ {
		if !isRegKind(types[i].Type.Kind()) {
			continue
		}
		s, err := b.regText(exprs[i])
		if err != nil {
			return nil, nil, err
		}
		project[i] = len(exprs)
		exprs = append(exprs, s)
	}
	if len(exprs) == len(types) {
		return q, project, nil
	}
	rel, outs := mapOutputs(q.rel, exprs)
	for i, p := range project {
		project[i] = outs[p]
	}
	o := *q
	o.rel = rel
	return &o, project, nil
}

// isRegKind reports whether k is a reg* kind, whose values print as
// names.
func isRegKind(k repr.Kind) bool { return k.IsOIDKind() && k != repr.KindOID }

// regFromTextSQL reads a regclass from text at run time: the OID of the
// relation the text names, as written (orders, public.orders,
// "Orders"), NULL if it names none (PostgreSQL raises 42P01).
const regFromTextSQL = `SELECT c.oid::regclass FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	WHERE $1 IN (c.relname, quote_ident(c.relname), n.nspname || '.' || c.relname, quote_ident(n.nspname) || '.' || quote_ident(c.relname))`

// regFromText converts text to a reg* type at run time. Only regclass is
// supported; a literal is read as the statement is planned instead.
func (b *binder) regFromText(s hscalar, t repr.Type) (hscalar, error) {
	if t.Kind() != repr.KindRegclass {
		return nil, unsupported("casting text to %s other than a literal", t)
	}
	text, err := b.coerceTo(s, repr.Text)
	if err != nil {
		return nil, err
	}
	return b.bindMacroSQL(regFromTextSQL, []hscalar{text}, &exprCtx{scope: &scope{}, clause: "SELECT"}, 0)
}
