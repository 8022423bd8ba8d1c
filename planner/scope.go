package planner

import (
	"slices"

	"freshet/expr"
	"freshet/sqlerr"
)

// scope is the set of columns that names in one query level can refer
// to: the columns of its FROM clause. parent is the enclosing query's
// scope, through which correlated references resolve, one level out per
// step.
type scope struct {
	items  []scopeItem
	parent *scope
	// unreachable names tables of the statement that this level's
	// expressions may not refer to (a MERGE target in a WHEN NOT
	// MATCHED clause), for PostgreSQL's error when one does.
	unreachable []string
}

// scopeItem is a column that a name can refer to.
type scopeItem struct {
	// table is the alias or name of the FROM item the column belongs to;
	// empty for a merged USING column of an unaliased join.
	table string
	name  string
	// col is the column's index in the relation the scope describes.
	col int
	typ expr.ColumnType
	// unqualifiedHidden is set on the columns a USING or NATURAL join
	// merged: an unqualified name finds the merged column instead.
	unqualifiedHidden bool
	// starHidden keeps the column out of an unqualified `*`.
	starHidden bool
	// source is the table or materialized view column the item reads
	// straight from (RowDescription reports it), or zero.
	source ColumnSource
	// fields, for a record column of a FROM subquery, are its fields'
	// columns (bind_record.go).
	fields []recordScopeField
}

// ColumnSource names a column of a table or materialized view: its
// relation and its position (from 1); zero for none.
type ColumnSource struct {
	Relation expr.GlobalID
	Column   int
}

// hasTable reports whether a FROM item of this level is named table.
func (s *scope) hasTable(table string) bool {
	for _, it := range s.items {
		if it.table == table {
			return true
		}
	}
	return false
}

// resolveColumn finds the column a (possibly qualified) name refers to,
// searching this level, then the enclosing ones. It returns the column
// as a reference of the right level.
func (s *scope) resolveColumn(table, name string) (hColumn, error) {
	level := 0
	tableSeen := false
	for sc := s; sc != nil; sc, level = sc.parent, level+1 {
		var found []scopeItem
		for _, it := range sc.items {
			if it.name != name {
				continue
			}
			if table == "" && !it.unqualifiedHidden || table != "" && it.table == table {
				found = append(found, it)
			}
		}
		if table != "" && sc.hasTable(table) {
			tableSeen = true
		}
		switch {
		case len(found) > 1:
			ref := name
			if table != "" {
				ref = table + "." + name
			}
			return hColumn{}, sqlerr.New(sqlerr.AmbiguousColumn, "column reference %q is ambiguous", ref)
		case len(found) == 1:
			it := found[0]
			display := name
			if it.table != "" {
				display = it.table + "." + name
			}
			return hColumn{level: level, index: it.col, t: it.typ, name: display}, nil
		}
		if tableSeen {
			return hColumn{}, sqlerr.New(sqlerr.UndefinedColumn, "column %s.%s does not exist", table, name)
		}
	}
	if table != "" {
		for sc := s; sc != nil; sc = sc.parent {
			if slices.Contains(sc.unreachable, table) {
				return hColumn{}, sqlerr.New(sqlerr.UndefinedTable, "invalid reference to FROM-clause entry for table %q", table).
					WithHint("There is an entry for table %q, but it cannot be referenced from this part of the query.", table)
			}
		}
		return hColumn{}, sqlerr.New(sqlerr.UndefinedTable, "missing FROM-clause entry for table %q", table)
	}
	return hColumn{}, sqlerr.New(sqlerr.UndefinedColumn, "column %q does not exist", name)
}

// star returns the columns `*` (table == "") or `table.*` expands to.
func (s *scope) star(table string) ([]scopeItem, error) {
	var out []scopeItem
	for _, it := range s.items {
		if table == "" && !it.starHidden || table != "" && it.table == table {
			out = append(out, it)
		}
	}
	if table != "" && !s.hasTable(table) {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "missing FROM-clause entry for table %q", table)
	}
	return out, nil
}

// shifted returns the items with their columns moved by offset.
func shifted(items []scopeItem, offset int) []scopeItem {
	out := make([]scopeItem, len(items))
	for i, it := range items {
		it.col += offset
		if it.fields != nil {
			fs := make([]recordScopeField, len(it.fields))
			for j, f := range it.fields {
				f.col += offset
				fs[j] = f
			}
			it.fields = fs
		}
		out[i] = it
	}
	return out
}

// columnSources returns, for each of exprs, the table column it reads
// straight from: a plain column of this level whose scope item has a
// source.
func columnSources(exprs []hscalar, sc *scope) []ColumnSource {
	out := make([]ColumnSource, len(exprs))
	for i, s := range exprs {
		c, ok := s.(hColumn)
		if !ok || c.level != 0 {
			continue
		}
		for _, it := range sc.items {
			if it.col == c.index {
				out[i] = it.source
				break
			}
		}
	}
	return out
}
