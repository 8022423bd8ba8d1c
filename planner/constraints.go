package planner

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/sqlerr"
)

// keySpec is a PRIMARY KEY or UNIQUE constraint as CREATE TABLE states
// it, before its column names are resolved.
type keySpec struct {
	primary bool
	// name is the CONSTRAINT clause's name, or "" for PostgreSQL's
	// generated one.
	name    string
	columns []string
	// deferrable is DEFERRABLE (INITIALLY IMMEDIATE): checked at the end
	// of the statement, which is when every key is checked here. It only
	// keeps apart keys that PostgreSQL keeps apart.
	deferrable bool
	loc        int32
}

// keySpecOf reads a PRIMARY KEY or UNIQUE constraint. column is the
// column a column constraint is written on ("" for a table constraint).
// What the check cannot honour is 0A000.
func (p *planner) keySpecOf(c *pg.Constraint, column string) (*keySpec, error) {
	switch {
	case c.NullsNotDistinct:
		return nil, errorAt(unsupported("UNIQUE NULLS NOT DISTINCT"), p.b.sql, c.Location)
	case len(c.Including) > 0:
		return nil, errorAt(unsupported("INCLUDE"), p.b.sql, c.Location)
	case c.Initdeferred:
		return nil, errorAt(unsupported("INITIALLY DEFERRED"), p.b.sql, c.Location)
	}
	k := &keySpec{primary: c.Contype == pg.ConstrType_CONSTR_PRIMARY, name: c.Conname, deferrable: c.Deferrable, loc: c.Location}
	if column != "" {
		k.columns = []string{column}
	}
	for _, n := range c.Keys {
		k.columns = append(k.columns, n.GetString_().GetSval())
	}
	return k, nil
}

// uniqueKeys resolves the key constraints of CREATE TABLE into ct's
// UniqueKeys, in PostgreSQL's order and with its names: the primary key
// first, then the UNIQUE constraints as written, a constraint on the same
// columns as an earlier one dropped (UNIQUE PRIMARY KEY is one key), and
// unnamed keys named t_pkey, t_a_key, t_a_b_key. A primary key's columns
// become NOT NULL.
func (p *planner) uniqueKeys(ct *CreateTable, specs []*keySpec) error {
	index := make(map[string]int, len(ct.Columns))
	for i, c := range ct.Columns {
		index[c.Name] = i
	}
	type key struct {
		spec *keySpec
		cols []int
	}
	var primary *key
	var others []*key
	for _, s := range specs {
		k := &key{spec: s}
		for _, name := range s.columns {
			i, ok := index[name]
			if !ok {
				return errorAt(sqlerr.New(sqlerr.UndefinedColumn, "column %q named in key does not exist", name), p.b.sql, s.loc)
			}
			if slices.Contains(k.cols, i) {
				kind := "unique"
				if s.primary {
					kind = "primary key"
				}
				return errorAt(sqlerr.New(sqlerr.DuplicateColumn, "column %q appears twice in %s constraint", name, kind), p.b.sql, s.loc)
			}
			k.cols = append(k.cols, i)
		}
		if !s.primary {
			others = append(others, k)
			continue
		}
		if primary != nil {
			return errorAt(sqlerr.New(sqlerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", ct.Name.Name), p.b.sql, s.loc)
		}
		primary = k
		for _, c := range k.cols {
			ct.Columns[c].NotNull = true
		}
	}
	// PostgreSQL's transformIndexConstraints: the primary key is kept in
	// preference to a UNIQUE on the same columns, and a key that repeats
	// an earlier one lends it its name if the earlier one has none.
	var final []*key
	if primary != nil {
		final = append(final, primary)
	}
	for _, k := range others {
		i := slices.IndexFunc(final, func(f *key) bool {
			return slices.Equal(f.cols, k.cols) && f.spec.deferrable == k.spec.deferrable
		})
		if i < 0 {
			final = append(final, k)
			continue
		}
		if final[i].spec.name == "" {
			final[i].spec.name = k.spec.name
		}
	}
	// Names are chosen in order, as PostgreSQL creates the keys' indexes:
	// a generated name steps aside for one taken earlier (t_a_key1), a
	// given name that is taken is an error.
	used := map[string]bool{ct.Name.Name: true}
	for _, k := range final {
		name := k.spec.name
		if name != "" && used[name] {
			return errorAt(sqlerr.New(sqlerr.DuplicateTable, "relation %q already exists", name), p.b.sql, k.spec.loc)
		}
		if name == "" {
			label, addition := "key", k.spec.columns
			if k.spec.primary {
				label, addition = "pkey", nil
			}
			name = chooseName(ct.Name.Name, indexNameAddition(addition), label, used)
		}
		used[name] = true
		ct.UniqueKeys = append(ct.UniqueKeys, UniqueKey{Name: name, Columns: k.cols, Primary: k.spec.primary})
	}
	return nil
}

// nameLimit is the longest identifier PostgreSQL keeps, in bytes
// (NAMEDATALEN - 1).
const nameLimit = 63

// indexNameAddition is PostgreSQL's ChooseIndexNameAddition: the column
// names joined by "_", cut once the result is a full identifier long.
func indexNameAddition(columns []string) string {
	var b strings.Builder
	for _, c := range columns {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(clip(c, nameLimit))
		if b.Len() > nameLimit {
			break
		}
	}
	return b.String()
}

// chooseName is PostgreSQL's ChooseRelationName within one table: the
// first of name1_name2_label, name1_name2_label1, ... that is not in
// used.
func chooseName(name1, name2, label string, used map[string]bool) string {
	for pass := 0; ; pass++ {
		l := label
		if pass > 0 {
			l = fmt.Sprintf("%s%d", label, pass)
		}
		if name := makeObjectName(name1, name2, l); !used[name] {
			return name
		}
	}
}

// makeObjectName is PostgreSQL's: name1_name2_label within nameLimit
// bytes, cutting the longer of name1 and name2 first, never inside a
// character. name2 may be empty (no name2 part).
func makeObjectName(name1, name2, label string) string {
	overhead := len(label) + 1
	if name2 != "" {
		overhead++
	}
	n1, n2 := len(name1), len(name2)
	for n1+n2 > nameLimit-overhead {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	name := clip(name1, n1)
	if name2 != "" {
		name += "_" + clip(name2, n2)
	}
	return name + "_" + label
}

// clip returns the longest prefix of s of at most n bytes that does not
// split a character.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
