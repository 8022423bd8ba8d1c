package catalog

import (
	"encoding/json"
	"fmt"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// Kind is the kind of a catalog object.
type Kind uint8

// The kinds of object.
const (
	Database Kind = iota + 1
	Schema
	Table
	View
	MaterializedView
	Index
)

func (k Kind) String() string {
	switch k {
	case Database:
		return "database"
	case Schema:
		return "schema"
	case Table:
		return "table"
	case View:
		return "view"
	case MaterializedView:
		return "materialized view"
	case Index:
		return "index"
	}
	return "object"
}

// IsRelation reports whether objects of kind k have columns and can be
// read in a query.
func (k Kind) IsRelation() bool { return k == Table || k == View || k == MaterializedView }

// Column is a column of a relation.
type Column struct {
	Name    string
	Type    repr.Type
	NotNull bool
	// Default is the column's DEFAULT expression as SQL text, or "".
	Default string
}

// Object is one catalog entry.
type Object struct {
	ID       uint64
	Kind     Kind
	Name     string
	Database string
	Schema   string
	// Columns are a relation's columns, in order.
	Columns []Column
	// SQL is the statement that created a view, materialized view or
	// index; it is planned again when the server restarts.
	SQL string
	// DependsOn lists the objects this one reads.
	DependsOn []uint64
	// On is the relation an index is on.
	On uint64
}

// ColumnTypes returns the relation's column types for plans.
func (o *Object) ColumnTypes() []expr.ColumnType {
	ts := make([]expr.ColumnType, len(o.Columns))
	for i, c := range o.Columns {
		ts[i] = expr.ColumnType{Type: c.Type, Nullable: !c.NotNull}
	}
	return ts
}

// QualifiedName returns database.schema.name for messages that need it.
func (o *Object) QualifiedName() string {
	return fmt.Sprintf("%s.%s.%s", o.Database, o.Schema, o.Name)
}

// The stored form of an object: stable, readable, and independent of
// repr's in-memory layout.
type storedObject struct {
	ID        uint64         `json:"id"`
	Kind      Kind           `json:"kind"`
	Name      string         `json:"name"`
	Database  string         `json:"database,omitempty"`
	Schema    string         `json:"schema,omitempty"`
	Columns   []storedColumn `json:"columns,omitempty"`
	SQL       string         `json:"sql,omitempty"`
	DependsOn []uint64       `json:"depends_on,omitempty"`
	On        uint64         `json:"on,omitempty"`
}

type storedColumn struct {
	Name    string  `json:"name"`
	Type    string  `json:"type"`
	Mods    []int32 `json:"mods,omitempty"`
	NotNull bool    `json:"not_null,omitempty"`
	Default string  `json:"default,omitempty"`
}

// Encode returns the object's stored form.
func Encode(o *Object) []byte {
	s := storedObject{ID: o.ID, Kind: o.Kind, Name: o.Name, Database: o.Database, Schema: o.Schema,
		SQL: o.SQL, DependsOn: o.DependsOn, On: o.On}
	for _, c := range o.Columns {
		s.Columns = append(s.Columns, storedColumn{Name: c.Name, Type: c.Type.Name(), Mods: typeMods(c.Type),
			NotNull: c.NotNull, Default: c.Default})
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(sqlerr.AssertionFailedf("encoding catalog object %d: %v", o.ID, err))
	}
	return b
}

// Decode reads an object's stored form.
func Decode(b []byte) (*Object, error) {
	var s storedObject
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, sqlerr.Wrapf(err, sqlerr.InternalError, "corrupt catalog record")
	}
	o := &Object{ID: s.ID, Kind: s.Kind, Name: s.Name, Database: s.Database, Schema: s.Schema,
		SQL: s.SQL, DependsOn: s.DependsOn, On: s.On}
	for _, c := range s.Columns {
		t, err := repr.TypeFromName(c.Type, c.Mods)
		if err != nil {
			return nil, sqlerr.Wrapf(err, sqlerr.InternalError, "corrupt catalog record %d", s.ID)
		}
		o.Columns = append(o.Columns, Column{Name: c.Name, Type: t, NotNull: c.NotNull, Default: c.Default})
	}
	return o, nil
}

// typeMods returns the type modifiers that rebuild t with TypeFromName.
func typeMods(t repr.Type) []int32 {
	if n, ok := t.Length(); ok {
		return []int32{int32(n)}
	}
	if p, s, ok := t.NumericPrecision(); ok {
		return []int32{int32(p), int32(s)}
	}
	if p, ok := t.TimePrecision(); ok {
		return []int32{int32(p)}
	}
	return nil
}
