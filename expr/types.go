package expr

import (
	"fmt"

	"freshet/repr"
)

// ColumnType is the type of one column of a relation. The zero value is
// a nullable column of the unknown type.
type ColumnType struct {
	Type     repr.Type
	Nullable bool
}

func (c ColumnType) String() string {
	if c.Nullable {
		return c.Type.String() + "?"
	}
	return c.Type.String()
}

// GlobalID names a collection outside the plan: a table, a view's
// arrangement, an index.
type GlobalID uint64

// LocalID names a binding of a Let within one plan.
type LocalID uint64

func (id GlobalID) String() string { return fmt.Sprintf("g%d", id) }

func (id LocalID) String() string { return fmt.Sprintf("l%d", id) }
