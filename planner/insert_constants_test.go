package planner

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"freshet/expr"
	"freshet/repr"
)

// TestConstantRowsMatchBinding: an INSERT … VALUES that constantRows
// takes gets the rows, in text and packed bytes, and the column types that
// binding each value (valuesInsert) gives, and one that binding refuses
// is never taken. Statements are drawn at random (seeded) over a table
// of many types, with values near the edges of each: bounds, scales a
// column rounds, text a type refuses, NULL, DEFAULT, expressions, rows
// of other widths, and columns left out with and without defaults.
func TestConstantRowsMatchBinding(t *testing.T) {
	cat := newTestCatalog(t)
	type col struct {
		name, typ string
		mods      []int32
		def       string // a default's text, or ""
		identity  byte
	}
	spec := []col{
		// A column with a default comes first, where a statement without
		// a column list gives it; a list mostly names it.
		{name: "withdef", typ: "int4", def: "7"},
		{name: "i2", typ: "int2"}, {name: "i4", typ: "int4"}, {name: "i8", typ: "int8"},
		{name: "n", typ: "numeric"}, {name: "n102", typ: "numeric", mods: []int32{10, 2}},
		{name: "n31", typ: "numeric", mods: []int32{3, 1}},
		{name: "f4", typ: "float4"}, {name: "f8", typ: "float8"},
		{name: "tx", typ: "text"}, {name: "vc3", typ: "varchar", mods: []int32{3}}, {name: "ch2", typ: "bpchar", mods: []int32{2}},
		{name: "b", typ: "bool"}, {name: "d", typ: "date"}, {name: "ts", typ: "timestamp"}, {name: "tz", typ: "timestamptz"},
		{name: "iv", typ: "interval"}, {name: "by", typ: "bytea"}, {name: "js", typ: "jsonb"}, {name: "o", typ: "oid"},
		{name: "always", typ: "int8", identity: 'a'},
		{name: "bydef", typ: "int8", identity: 'd'},
	}
	rel := Relation{ID: 300, Name: QualifiedName{Schema: "public", Name: "wide"}, Kind: KindTable}
	for _, c := range spec {
		typ, err := repr.TypeFromName(c.typ, c.mods)
		if err != nil {
			t.Fatal(err)
		}
		rc := RelationColumn{Name: c.name, Type: expr.ColumnType{Type: typ, Nullable: true}, Identity: c.identity}
		if c.def != "" {
			d, err := repr.ParseText(typ, c.def)
			if err != nil {
				t.Fatal(err)
			}
			rc.Default = expr.Literal{Value: d, Type: typ}
		}
		rel.Columns = append(rel.Columns, rc)
	}
	cat.rels["wide"] = rel

	// Values are drawn for every column from one pool, so that most
	// meet a column that casts or reads them.
	pool := []string{
		"0", "1", "-1", "32767", "32768", "-32769", "2147483647", "2147483648", "-2147483649",
		"9223372036854775807", "9223372036854775808", "99999999999999999999999",
		"1.5", "-1.25", "1.005", "99.95", "99.94", "12345678.995", "123456789.5", "0.000001", "00012.50",
		"0777777777777", "08589934592",
		"'12'", "'1.5'", "' 7 '", "'abc'", "'ab'", "'abcd'", "'a''b'", "''", "'x y'",
		"'2026-12-06'", "'2026-02-30'", "'2026-12-06 10:11:12'", "'2026-12-06 10:11:12+02'", "'infinity'",
		"'1 day'", "'1 mon 2 days 03:00'", "'\\x0102'", "'{\"a\": 1}'", "'[1, 2'", "'NaN'", "'-Infinity'",
		"'t'", "'no'", "'maybe'", "true", "false", "NULL", "null",
		"DEFAULT", "1 + 1", "'3'::int4", "-(2)", "CAST(1 AS int8)",
	}
	const seed = 20261206
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("seed %d", seed)
	taken, bound := 0, 0
	for range 3000 {
		var cols []string
		listed := rng.IntN(4) != 0
		if listed {
			for _, c := range rng.Perm(len(spec))[:1+rng.IntN(4)] {
				cols = append(cols, spec[c].name)
			}
			if !strings.Contains(strings.Join(cols, " "), "withdef") && rng.IntN(4) != 0 {
				cols = append(cols, "withdef")
			}
		} else {
			for _, c := range spec[:1+rng.IntN(len(spec))] {
				cols = append(cols, c.name)
			}
		}
		var sb strings.Builder
		sb.WriteString("INSERT INTO wide ")
		if listed {
			sb.WriteString("(" + strings.Join(cols, ", ") + ") ")
		}
		sb.WriteString("VALUES ")
		// A value is mostly one its column reads; the pool's odd ones are
		// rarer, so that many statements are taken whole.
		plain := map[string][]string{
			"i2": {"1", "-32768", "'5'"}, "i4": {"2147483647", "'12'", "0"}, "i8": {"2147483648", "-3"},
			"n": {"1.5", "00012.50", "2147483648"}, "n102": {"99.95", "1.005", "7"}, "n31": {"1.25", "-9.99", "'2.5'"},
			"f4": {"1.5", "3"}, "f8": {"0.000001", "'NaN'"}, "tx": {"'abc'", "''"}, "vc3": {"'ab'", "'abc'"},
			"ch2": {"'a'", "'ab'"}, "b": {"true", "'t'", "'no'"}, "d": {"'2026-12-06'"}, "ts": {"'2026-12-06 10:11:12'"},
			"tz": {"'2026-12-06 10:11:12+02'"}, "iv": {"'1 day'"}, "by": {"'\\x0102'"}, "js": {"'{\"a\": 1}'"},
			"o": {"12", "'13'"}, "withdef": {"3"}, "always": {"NULL"}, "bydef": {"4"},
		}
		rows := 1 + rng.IntN(4)
		for r := range rows {
			if r > 0 {
				sb.WriteString(", ")
			}
			width := len(cols)
			if rng.IntN(20) == 0 {
				width += rng.IntN(3) - 1
			}
			var vals []string
			for j := range max(width, 1) {
				switch {
				case rng.IntN(12) == 0, j >= len(cols):
					vals = append(vals, pool[rng.IntN(len(pool))])
				case rng.IntN(10) == 0:
					vals = append(vals, "NULL")
				default:
					p := plain[cols[j]]
					vals = append(vals, p[rng.IntN(len(p))])
				}
			}
			sb.WriteString("(" + strings.Join(vals, ", ") + ")")
		}
		sql := sb.String()

		fast, ok, general, err := planValuesBothWays(t, cat, sql)
		if !ok {
			if err == nil {
				bound++
			}
			continue
		}
		taken++
		if err != nil {
			t.Fatalf("%s: constantRows took it, binding refused it: %v", sql, err)
		}
		want, isConst := general.(hConstant)
		if !isConst {
			t.Fatalf("%s: constantRows took it, binding made %T", sql, general)
		}
		if fmt.Sprint(fast.typ) != fmt.Sprint(want.typ) {
			t.Fatalf("%s: column types\n got  %v\n want %v", sql, fast.typ, want.typ)
		}
		if len(fast.rows) != len(want.rows) {
			t.Fatalf("%s: %d rows, want %d", sql, len(fast.rows), len(want.rows))
		}
		for i := range fast.rows {
			for c := range want.rows[i] {
				g, w := fast.rows[i][c], want.rows[i][c]
				// The packed bytes are a sort key, which drops a numeric's
				// scale and a bpchar's padding: the text is compared too.
				if g.Kind() != w.Kind() || g.String() != w.String() || !bytes.Equal(repr.PackRow(g), repr.PackRow(w)) {
					t.Fatalf("%s: row %d column %s: %v (%v), want %v (%v)", sql, i, spec[c].name, g, g.Kind(), w, w.Kind())
				}
			}
		}
	}
	t.Logf("%d statements taken, %d more bound", taken, bound)
	if taken < 500 || bound < 300 {
		t.Fatalf("the draw took %d statements and left %d to binding; both should be many", taken, bound)
	}
}

// planValuesBothWays plans the INSERT … VALUES sql up to its relation
// both ways: constantRows, and binding each value (valuesInsert).
func planValuesBothWays(t *testing.T, cat Catalog, sql string) (fast hConstant, ok bool, general hrel, err error) {
	t.Helper()
	parsed, perr := Parse(sql)
	if perr != nil || len(parsed) != 1 {
		t.Fatalf("%s: %v", sql, perr)
	}
	// A statement parseFastInsert read is planned from its literals, and
	// bound from the tree it builds; the literals of that tree must make
	// the same rows.
	is := parsed[0].node.GetInsertStmt()
	if f := parsed[0].fast; f != nil {
		is = f.tree().GetInsertStmt()
	}
	sel := is.SelectStmt.GetSelectStmt()
	plan := func() (*planner, Relation, []int, []repr.Type) {
		p := newPlanner(cat, sql, nil)
		_, r, err := p.target(is.Relation, "insert into")
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		cols, err := p.insertColumns(is.Cols, r, is.Relation.Relname)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		types := make([]repr.Type, len(r.Columns))
		for i, c := range r.Columns {
			types[i] = c.Type.Type
		}
		return p, r, cols, types
	}
	p, r, cols, types := plan()
	fast, ok = p.constantRows(is.Override, len(sel.ValuesLists), valuesWidth(sel), valuesLiteral(sel), r, cols, types)
	if f := parsed[0].fast; f != nil {
		p, r, cols, types = plan()
		read, readOK := p.constantRows(is.Override, f.rows(), f.width, f.at, r, cols, types)
		if readOK != ok || fmt.Sprint(read.rows) != fmt.Sprint(fast.rows) || fmt.Sprint(read.typ) != fmt.Sprint(fast.typ) {
			t.Fatalf("%s: from the literals read %v %v (%v), from the tree %v %v (%v)", sql, read.rows, read.typ, readOK, fast.rows, fast.typ, ok)
		}
	}
	p, r, cols, types = plan()
	general, err = p.valuesInsert(is, sel, r, cols, types)
	return fast, ok, general, err
}

// TestNumberLiteralsAreDecimal: an integer literal is read in base 10
// whatever its leading zeros, as PostgreSQL reads it, and typed by its
// value (numberValue).
func TestNumberLiteralsAreDecimal(t *testing.T) {
	for _, c := range []struct {
		text, want string
		typ        repr.Type
	}{
		{"0777777777777", "777777777777", repr.Int8},
		{"-0777777777777", "-777777777777", repr.Int8},
		{"08589934592", "8589934592", repr.Int8},
		{"007", "7", repr.Int4},
		{"0099999999999999999999", "99999999999999999999", repr.Numeric},
	} {
		l, err := numberValue(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if l.t != c.typ || l.v.String() != c.want {
			t.Errorf("%s is %v of %s, want %s of %s", c.text, l.v, l.t, c.want, c.typ)
		}
	}
}
