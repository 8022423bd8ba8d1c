package catalog

import (
	"fmt"
	"slices"
	"strings"

	"freshet/repr"
	"freshet/sqlerr"
)

// Enum types are objects of kind Type, named in a namespace of their own
// per schema. An enum's OID is derived from its id as a relation's is;
// the id after it is reserved for its array type, so that the array's
// OID is the enum's plus one (repr.EnumType).

func typeKey(database, schema, name string) nameKey {
	return nameKey{kind: Type, database: database, schema: schema, name: name}
}

// CreateType validates and adds enum type o (its Database, Schema, Name
// and Labels set), and fills in its id. A type of that name in the
// schema is 42710.
func (c *Catalog) CreateType(o *Object) (*Object, error) {
	if _, ok := c.names[nameKey{kind: Schema, database: o.Database, name: o.Schema}]; !ok {
		return nil, sqlerr.New(sqlerr.InvalidSchemaName, "schema %q does not exist", o.Schema)
	}
	if _, dup := c.names[keyOf(o)]; dup {
		return nil, sqlerr.New(sqlerr.DuplicateObject, "type %q already exists", o.Name)
	}
	if err := CheckEnumLabels(o.Labels); err != nil {
		return nil, err
	}
	o = c.add(o)
	// The array type's OID.
	c.nextID++
	return o, nil
}

// CheckEnumLabels checks an enum's labels as PostgreSQL 15 does: each 1
// to 63 bytes (42602), none twice (23505, in the words of its unique
// index on pg_enum; ADD VALUE of an existing label is 42710).
func CheckEnumLabels(labels []repr.EnumLabel) error {
	seen := map[string]bool{}
	for _, l := range labels {
		if err := checkLabel(l.Label); err != nil {
			return err
		}
		if seen[l.Label] {
			return sqlerr.New(sqlerr.UniqueViolation, "duplicate key value violates unique constraint \"pg_enum_typid_label_index\"")
		}
		seen[l.Label] = true
	}
	return nil
}

func checkLabel(label string) error {
	if label == "" || len(label) > repr.MaxEnumLabelLen {
		return sqlerr.New(sqlerr.InvalidName, "invalid enum label %q", label).
			WithDetail("Labels must be %d bytes or less.", repr.MaxEnumLabelLen)
	}
	return nil
}

// TypeNamed returns the type name in schema of database, or nil.
func (c *Catalog) TypeNamed(database, schema, name string) *Object {
	if id, ok := c.names[typeKey(database, schema, name)]; ok {
		return c.objects[id]
	}
	return nil
}

// WithEnumValue returns a copy of enum type o with label added (ALTER
// TYPE … ADD VALUE): last, or just before or after neighbor. The new
// label's position lies between its neighbours', so that no existing
// value moves. added is false, and the copy nil, when label exists and
// ifNotExists is set.
func WithEnumValue(o *Object, label, neighbor string, after, ifNotExists bool) (copy *Object, added bool, err error) {
	if err := checkLabel(label); err != nil {
		return nil, false, err
	}
	if slices.ContainsFunc(o.Labels, func(l repr.EnumLabel) bool { return l.Label == label }) {
		if ifNotExists {
			return nil, false, nil
		}
		return nil, false, sqlerr.New(sqlerr.DuplicateObject, "enum label %q already exists", label)
	}
	labels := o.Labels
	at := len(labels) // insert before index at
	if neighbor != "" {
		i := slices.IndexFunc(labels, func(l repr.EnumLabel) bool { return l.Label == neighbor })
		if i < 0 {
			return nil, false, sqlerr.New(sqlerr.InvalidParameterValue, "%q is not an existing enum label", neighbor)
		}
		at = i
		if after {
			at = i + 1
		}
	}
	var sort float64
	switch {
	case len(labels) == 0:
		sort = 1
	case at == len(labels):
		sort = labels[at-1].Sort + 1
	case at == 0:
		sort = labels[0].Sort - 1
	default:
		lo, hi := labels[at-1].Sort, labels[at].Sort
		sort = lo + (hi-lo)/2
		if sort <= lo || sort >= hi {
			// PostgreSQL renumbers here; a renumbering would move the
			// positions that stored rows carry.
			return nil, false, sqlerr.New(sqlerr.ProgramLimitExceeded, "no room for another enum label between %q and %q", labels[at-1].Label, labels[at].Label)
		}
	}
	cp := *o
	cp.Labels = slices.Insert(slices.Clone(labels), at, repr.EnumLabel{Sort: sort, Label: label})
	return &cp, true, nil
}

// EnumLabelsOf returns the labels of enum type o as the planner embeds
// them in plans.
func EnumLabelsOf(o *Object) *repr.EnumLabels {
	return &repr.EnumLabels{Type: EnumTypeOf(o), Labels: slices.Clone(o.Labels)}
}

// EnumTypeOf returns the type of enum o. Its name is quoted where it is
// not a plain identifier and qualified outside the public schema, as
// format_type prints names with the default search path.
func EnumTypeOf(o *Object) repr.Type {
	name := quoteIdent(o.Name)
	if o.Schema != DefaultSchema {
		name = quoteIdent(o.Schema) + "." + name
	}
	return repr.EnumType(OIDOf(o.ID), name)
}

// quoteIdent quotes name unless it is a plain lower-case identifier.
func quoteIdent(name string) string {
	plain := name != ""
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || (i > 0 && (c >= '0' && c <= '9' || c == '$'))) {
			plain = false
			break
		}
	}
	if plain {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// UserOIDBase is the OID of the object with id 0: every object's OID is
// UserOIDBase plus its id, so OIDs survive a restart.
const UserOIDBase = 16384

// OIDOf returns the OID of the object with id id.
func OIDOf(id uint64) uint32 { return uint32(UserOIDBase + id) }

// PlanDropType works out what DROP TYPE name removes: the type alone.
// While a column of a relation has the type, the drop fails with 2BP01
// and PostgreSQL's message; with CASCADE, where PostgreSQL would drop
// those columns, it is refused (0A000), never widened to their tables.
func (c *Catalog) PlanDropType(t *Object, cascade bool) (*DropPlan, error) {
	if t.Kind != Type {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "%q is not a type", t.Name)
	}
	oid := OIDOf(t.ID)
	var lines []string
	for _, o := range c.typeDependents(oid) {
		lines = append(lines, typeDependsLine(o, t, oid))
	}
	if len(lines) > 0 {
		if cascade {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "DROP TYPE … CASCADE of a type that columns have is not supported").
				WithDetail("%s", strings.Join(lines, "\n")).
				WithHint("Drop or alter those columns first.")
		}
		return nil, sqlerr.New(sqlerr.DependentObjectsStillExist, "cannot drop type %s because other objects depend on it", t.Name).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	return &DropPlan{Objects: []*Object{t}}, nil
}

// usesType reports whether o has a column of enum type oid (or an array
// of it), and names the first.
func usesType(o *Object, oid uint32) (string, bool) {
	for _, col := range o.Columns {
		if col.Type.EnumOID() == oid {
			return col.Name, true
		}
	}
	return "", false
}

// typeDependents returns the relations with a column of the enum type
// whose OID is oid, and the views and indexes whose definitions name it.
func (c *Catalog) typeDependents(oid uint32) []*Object {
	var out []*Object
	for _, o := range c.Objects() {
		if _, ok := usesType(o, oid); (ok && o.Kind.IsRelation()) || slices.Contains(o.UsesTypes, oid) {
			out = append(out, o)
		}
	}
	return out
}

// typeDependsLine is PostgreSQL's "column m of table t depends on type
// mood", or "materialized view v depends on type mood" for a definition
// that names it.
func typeDependsLine(o, t *Object, oid uint32) string {
	if col, ok := usesType(o, oid); ok && o.Kind.IsRelation() {
		return fmt.Sprintf("column %s of %s %s depends on type %s", col, o.Kind, o.Name, t.Name)
	}
	return fmt.Sprintf("%s %s depends on type %s", o.Kind, o.Name, t.Name)
}
