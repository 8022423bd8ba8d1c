package planner

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// Enum types. A type name the built-in types lack is looked up in the
// catalog (EnumCatalog); reading text as an enum needs its labels, which
// the planner copies into the plan (expr.Cast.Labels, or a literal read
// at once), so evaluating a plan never reads the catalog.

// EnumCatalog is what a Catalog implements to resolve enum types. A
// Catalog without it knows none.
type EnumCatalog interface {
	// ResolveEnum returns the labels of the enum type name, resolving an
	// unqualified name through the search path; a missing type is 42704
	// `type "x" does not exist`.
	ResolveEnum(name QualifiedName) (*repr.EnumLabels, error)
	// EnumByOID returns the labels of the enum type with OID oid.
	EnumByOID(oid uint32) (*repr.EnumLabels, error)
	// EnumTypes returns every enum type of the database, for
	// format_type, in OID order.
	EnumTypes() []repr.Type
}

// formatType is format_type(oid, mod). The enum types' names are the
// catalog's, which expr.FormatType cannot know: their OIDs are matched
// first, against the types that exist when the statement is planned.
func (b *binder) formatType(oid, mod hscalar) hscalar {
	t := expr.ColumnType{Type: repr.Text, Nullable: true}
	var s hscalar = hVariadic{fn: expr.FormatType, args: []hscalar{oid, mod}, t: t}
	ec, ok := b.cat.(EnumCatalog)
	if !ok {
		return s
	}
	types := ec.EnumTypes()
	if len(types) > 0 && b.enumSnapshot == "" {
		b.enumSnapshot = "format_type"
	}
	for i := len(types) - 1; i >= 0; i-- {
		for _, et := range []repr.Type{types[i], repr.ArrayOf(types[i])} {
			is := hBinary{fn: expr.Eq, left: oid, right: hLiteral{v: repr.NewOID(repr.KindOID, et.OID()), t: repr.OID}, t: expr.ColumnType{Type: repr.Bool, Nullable: true}}
			s = hIf{cond: is, then: hLiteral{v: repr.NewText(et.String()), t: repr.Text}, els: s, t: t}
		}
	}
	return s
}

// enumType resolves names as a user's enum type.
func (b *binder) enumType(names []string) (repr.Type, error) {
	ec, ok := b.cat.(EnumCatalog)
	name, err := nameFromParts(names)
	if !ok || err != nil || name.Name == "" {
		return repr.Type{}, sqlerr.New(sqlerr.UndefinedObject, "type %q does not exist", strings.Join(names, "."))
	}
	l, err := ec.ResolveEnum(name)
	if err != nil {
		return repr.Type{}, err
	}
	b.usesEnum(l.Type.EnumOID())
	return l.Type, nil
}

// usesEnum records that the statement names the enum type oid.
func (b *binder) usesEnum(oid uint32) {
	if !slices.Contains(b.enums, oid) {
		b.enums = append(b.enums, oid)
	}
}

// enumLabels returns the labels of enum type t as the catalog holds
// them now.
func (b *binder) enumLabels(t repr.Type) (*repr.EnumLabels, error) {
	ec, ok := b.cat.(EnumCatalog)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedObject, "type %s does not exist", t)
	}
	b.usesEnum(t.EnumOID())
	return ec.EnumByOID(t.EnumOID())
}

// enumCast is a cast to enum type to, or to an array of one: it carries
// the enum's labels.
func (b *binder) enumCast(s hscalar, to repr.Type, assign bool) (hscalar, error) {
	l, err := b.enumLabels(to)
	if err != nil {
		return nil, err
	}
	return hCast{arg: s, to: to, assign: assign, labels: l}, nil
}

// bindEnumFunc binds enum_first, enum_last and enum_range, whose
// arguments matter only for their type: the result is a constant of the
// labels at planning time, as in PostgreSQL a function of the catalog.
func (b *binder) bindEnumFunc(name string, args []hscalar) (hscalar, bool, error) {
	switch name {
	case "enum_first", "enum_last", "enum_range":
	default:
		return nil, false, nil
	}
	if len(args) == 0 || len(args) > 2 || (len(args) == 2 && name != "enum_range") {
		return nil, false, nil
	}
	t := args[0].typ().Type
	if len(args) == 2 && isUnknown(args[0]) {
		t = args[1].typ().Type
	}
	if !t.IsEnum() {
		kinds := make([]string, len(args))
		for i, a := range args {
			kinds[i] = typeName(a.typ().Type)
		}
		return nil, true, sqlerr.New(sqlerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(kinds, ", ")).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	l, err := b.enumLabels(t)
	if err != nil {
		return nil, true, err
	}
	if b.enumSnapshot == "" {
		b.enumSnapshot = name
	}
	switch name {
	case "enum_first":
		return hLiteral{v: l.First(), t: t}, true, nil
	case "enum_last":
		return hLiteral{v: l.Last(), t: t}, true, nil
	}
	if len(args) == 1 {
		return hLiteral{v: l.Range(repr.Null, repr.Null), t: repr.ArrayOf(t)}, true, nil
	}
	var bounds [2]repr.Datum
	for i, a := range args {
		c, err := b.coerceTo(a, t)
		if err != nil {
			return nil, true, err
		}
		lit, ok := c.(hLiteral)
		if !ok {
			return nil, true, unsupported("enum_range of bounds that are not constants")
		}
		bounds[i] = lit.v
	}
	return hLiteral{v: l.Range(bounds[0], bounds[1]), t: repr.ArrayOf(t)}, true, nil
}

// CreateEnum is CREATE TYPE name AS ENUM (labels).
type CreateEnum struct {
	Name   QualifiedName
	Labels []string
}

// DropType is DROP TYPE [IF EXISTS] name, … [CASCADE].
type DropType struct {
	Names    []QualifiedName
	IfExists bool
	Cascade  bool
}

// AlterEnum is ALTER TYPE name ADD VALUE [IF NOT EXISTS] label
// [BEFORE|AFTER neighbor].
type AlterEnum struct {
	Name        QualifiedName
	Label       string
	Neighbor    string
	After       bool
	IfNotExists bool
}

func (*CreateEnum) Tag() string { return "CREATE TYPE" }
func (*DropType) Tag() string   { return "DROP TYPE" }
func (*AlterEnum) Tag() string  { return "ALTER TYPE" }

// nameFromList reads a qualified name from pg_query's list of strings.
func nameFromList(nodes []*pg.Node) (QualifiedName, error) {
	var parts []string
	for _, n := range nodes {
		parts = append(parts, n.GetString_().GetSval())
	}
	return nameFromParts(parts)
}

// nameFromParts reads a qualified name from its dotted parts: name,
// schema.name or database.schema.name.
func nameFromParts(parts []string) (QualifiedName, error) {
	var name QualifiedName
	switch len(parts) {
	case 1:
		name.Name = parts[0]
	case 2:
		name.Schema, name.Name = parts[0], parts[1]
	case 3:
		name.Database, name.Schema, name.Name = parts[0], parts[1], parts[2]
	default:
		return name, sqlerr.New(sqlerr.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(parts, "."))
	}
	return name, nil
}

func (p *planner) createEnum(s *pg.CreateEnumStmt) (Statement, error) {
	name, err := nameFromList(s.TypeName)
	if err != nil {
		return nil, err
	}
	st := &CreateEnum{Name: name}
	for _, v := range s.Vals {
		st.Labels = append(st.Labels, v.GetString_().GetSval())
	}
	return st, nil
}

func (p *planner) alterEnum(s *pg.AlterEnumStmt) (Statement, error) {
	if s.OldVal != "" {
		return nil, unsupported("ALTER TYPE … RENAME VALUE")
	}
	name, err := nameFromList(s.TypeName)
	if err != nil {
		return nil, err
	}
	return &AlterEnum{Name: name, Label: s.NewVal, Neighbor: s.NewValNeighbor, After: s.NewValIsAfter, IfNotExists: s.SkipIfNewValExists}, nil
}

func (p *planner) dropType(ds *pg.DropStmt) (Statement, error) {
	d := &DropType{IfExists: ds.MissingOk, Cascade: ds.Behavior == pg.DropBehavior_DROP_CASCADE}
	for _, o := range ds.Objects {
		tn := o.GetTypeName()
		if tn == nil {
			return nil, sqlerr.AssertionFailedf("DROP TYPE of a %T", o.GetNode())
		}
		name, err := nameFromList(tn.Names)
		if err != nil {
			return nil, err
		}
		d.Names = append(d.Names, name)
	}
	return d, nil
}
