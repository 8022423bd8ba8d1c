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
	// Role is a role (a user or group) other than the built-in
	// superuser: roles.go.
	Role
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
	case Role:
		return "role"
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
	// UniqueKeys are a table's PRIMARY KEY and UNIQUE constraints, the
	// primary key first. Their Index is zero.
	UniqueKeys []UniqueKey
	// Unique reports a unique index; KeyColumns are then its key columns,
	// as positions in the columns of the table it is on. A unique index
	// is one more unique key of that table (Catalog.UniqueKeys).
	Unique     bool
	KeyColumns []int
	// TimeZone is the session time zone a materialized view or a table's
	// column defaults were planned in, and are planned in again at
	// restart (planner.SessionZone); empty is UTC.
	TimeZone string
	// A role's attributes: whether it may log in and is a superuser,
	// and its password's SCRAM-SHA-256 verifier ("" for none).
	Login, Superuser bool
	Password         string
	// Owner is the role that created a relation or index, empty for the
	// built-in superuser (OwnerName).
	Owner string
	// ACL are the privileges granted on a database, schema or relation
	// (privileges.go); nil until a GRANT or REVOKE changes its defaults.
	ACL []Grant
}

// UniqueKey is a set of a table's columns in which no two rows may hold
// equal values, unless one of the values is NULL: a PRIMARY KEY, a
// UNIQUE constraint or a unique index.
type UniqueKey struct {
	// Name is the constraint's name, which errors show: t_pkey, t_a_key
	// or the CONSTRAINT clause's name, or a unique index's name.
	Name string
	// Columns are the key's columns, as positions in the table's columns,
	// in key order. Invariant: not empty, each a column of the table.
	Columns []int
	// Primary reports the PRIMARY KEY.
	Primary bool
	// Index is the unique index whose key this is, or zero for a
	// constraint of CREATE TABLE.
	Index uint64
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
	// UniqueKeys, Unique and KeyColumns are absent from records written
	// before unique keys existed: those tables have none.
	UniqueKeys []storedKey `json:"unique_keys,omitempty"`
	Unique     bool        `json:"unique,omitempty"`
	KeyColumns []int       `json:"key_columns,omitempty"`
	TimeZone   string      `json:"time_zone,omitempty"`
	Login      bool        `json:"login,omitempty"`
	Superuser  bool        `json:"superuser,omitempty"`
	Password   string      `json:"password,omitempty"`
	Owner      string      `json:"owner,omitempty"`
	// ACL is absent (nil) for default privileges and a list, possibly
	// empty, once a GRANT or REVOKE has set them.
	ACL *[]storedGrant `json:"acl,omitempty"`
}

type storedGrant struct {
	Role       string `json:"role"`
	Privileges string `json:"privileges"`
}

type storedKey struct {
	Name    string `json:"name"`
	Columns []int  `json:"columns"`
	Primary bool   `json:"primary,omitempty"`
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
		SQL: o.SQL, DependsOn: o.DependsOn, On: o.On, Unique: o.Unique, KeyColumns: o.KeyColumns, TimeZone: o.TimeZone,
		Login: o.Login, Superuser: o.Superuser, Password: o.Password, Owner: o.Owner}
	if o.ACL != nil {
		acl := make([]storedGrant, len(o.ACL))
		for i, g := range o.ACL {
			acl[i] = storedGrant{Role: g.Role, Privileges: g.Privileges.Letters()}
		}
		s.ACL = &acl
	}
	for _, c := range o.Columns {
		s.Columns = append(s.Columns, storedColumn{Name: c.Name, Type: c.Type.Name(), Mods: typeMods(c.Type),
			NotNull: c.NotNull, Default: c.Default})
	}
	for _, k := range o.UniqueKeys {
		s.UniqueKeys = append(s.UniqueKeys, storedKey{Name: k.Name, Columns: k.Columns, Primary: k.Primary})
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
		SQL: s.SQL, DependsOn: s.DependsOn, On: s.On, Unique: s.Unique, KeyColumns: s.KeyColumns, TimeZone: s.TimeZone,
		Login: s.Login, Superuser: s.Superuser, Password: s.Password, Owner: s.Owner}
	if s.ACL != nil {
		o.ACL = make([]Grant, len(*s.ACL))
		for i, g := range *s.ACL {
			p, err := privilegesFromLetters(g.Privileges)
			if err != nil {
				return nil, sqlerr.Wrapf(err, sqlerr.InternalError, "corrupt catalog record %d", s.ID)
			}
			o.ACL[i] = Grant{Role: g.Role, Privileges: p}
		}
	}
	for _, k := range s.UniqueKeys {
		o.UniqueKeys = append(o.UniqueKeys, UniqueKey{Name: k.Name, Columns: k.Columns, Primary: k.Primary})
	}
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
