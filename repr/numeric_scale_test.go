package repr

import (
	"fmt"
	"strings"
	"testing"
)

// The display scales of numeric results, checked against PostgreSQL
// 15.18: every want below is what psql printed for the query in the
// table's comment. Each case is checked twice: the datum the arithmetic
// returns, and that datum after a trip through a row decoded with the
// type the expression has (ArithType, CastType, EitherType), which is
// what a dataflow's output goes through. Where the trip cannot tell what
// PostgreSQL prints, row says what it gives instead (see quotientScale).

// roundTrip packs d into a row and decodes it as a value of type t.
func roundTrip(t *testing.T, d Datum, typ Type) Datum {
	t.Helper()
	ds, err := PackRow(d).Datums([]Type{typ})
	if err != nil {
		t.Fatalf("decoding %s as %s: %v", d, typ, err)
	}
	return ds[0]
}

// literal parses s as a numeric constant and returns it with the type
// expr gives a numeric literal: its own display scale.
func literal(t *testing.T, s string) (Datum, Type) {
	t.Helper()
	d, err := ParseText(Numeric, s)
	if err != nil {
		t.Fatalf("parsing %q: %v", s, err)
	}
	scale, _ := d.NumericScale()
	return d, Numeric.WithDisplayScale(scale)
}

// checkScale compares a result and its trip through a row with what
// PostgreSQL prints.
func checkScale(t *testing.T, sql string, got Datum, typ Type, want, row string) {
	t.Helper()
	if s := FormatText(got); s != want {
		t.Errorf("%s = %s, want %s", sql, s, want)
	}
	if row == "" {
		row = want
	}
	if s := FormatText(roundTrip(t, got, typ)); s != row {
		t.Errorf("%s through a row of %s = %s, want %s", sql, typ, s, row)
	}
}

// SELECT 'a'::numeric <op> 'b'::numeric
var binaryScaleCases = []struct {
	op         byte
	a, b, want string
	row        string
}{
	{'/', "1", "3", "0.33333333333333333333", ""},
	{'/', "100", "3", "33.3333333333333333", ""},
	{'/', "1", "300000", "0.000003333333333333333333", ""},
	{'/', "123456789", "7", "17636684.142857142857", ""},
	{'/', "0.001", "7", "0.00014285714285714286", ""},
	{'/', "-1", "3", "-0.33333333333333333333", ""},
	{'/', "1", "-3", "-0.33333333333333333333", ""},
	{'/', "-7.5", "2.5", "-3.0000000000000000", ""},
	{'/', "0", "3", "0.00000000000000000000", ""},
	{'/', "0.00", "7", "0.00000000000000000000", ""},
	{'/', "10", "4", "2.5000000000000000", ""},
	{'/', "7.0", "3", "2.3333333333333333", ""},
	{'/', "2", "2", "1.00000000000000000000", ""},
	{'/', "10000", "1", "10000.0000000000000000", ""},
	{'/', "1", "7", "0.14285714285714285714", ""},
	{'/', "22", "7.000", "3.1428571428571429", ""},
	{'/', "1e20", "3", "33333333333333333333", ""},
	{'/', "1", "1e20", "0.0000000000000000000100000000000000000000", ""},
	{'/', "9999", "10000", "0.99990000000000000000", ""},
	{'/', "10000", "9999", "1.0001000100010001", ""},
	{'/', "5", "0.5", "10.0000000000000000", ""},
	{'/', "1.23456789012345678901234", "3", "0.41152263004115226300411", ""},
	{'/', "2", "3.00000000000000000000000", "0.66666666666666666666667", ""},
	{'/', "123456789012345678901234567890", "3", "41152263004115226300411522630", ""},
	{'/', "0.5", "0.25", "2.0000000000000000", ""},
	{'/', "1", "0.0000001", "10000000.000000000000", ""},
	{'/', "12345", "12345", "1.00000000000000000000", ""},
	{'/', "1", "10000", "0.000100000000000000000000", ""},
	{'/', "-0.0001", "1", "-0.000100000000000000000000", ""},
	{'/', "100000", "3", "33333.333333333333", ""},
	{'/', "-123.456", "-0.001", "123456.000000000000", ""},
	{'/', "0.1", "0.20", "0.50000000000000000000", ""},
	{'/', "2.50", "1.5", "1.6666666666666667", ""},
	// A zero quotient is taken to come from a divisor from 1 to 9999.
	{'/', "0", "30000", "0.000000000000000000000000", "0.00000000000000000000"},
	{'/', "0", "0.5", "0.0000000000000000", "0.00000000000000000000"},
	// Operands with the same leading base-10000 digit give 4 digits more
	// than the quotient alone tells.
	{'/', "15000", "10000", "1.50000000000000000000", "1.5000000000000000"},
	{'/', "25000", "2", "12500.0000000000000000", "12500.000000000000"},
	{'*', "2.50", "1.5", "3.750", ""},
	{'*', "0.1", "0.2", "0.02", ""},
	{'*', "1.000", "2", "2.000", ""},
	{'*', "-1.5", "0", "0.0", ""},
	{'*', "1.1", "1.1", "1.21", ""},
	{'*', "0.000000000000000000001", "0.000000000000000000001", "0.000000000000000000000000000000000000000001", ""},
	{'*', "1000000", "1000000", "1000000000000", ""},
	{'+', "0.1", "0.20", "0.30", ""},
	{'-', "1.50", "1.5", "0.00", ""},
	{'+', "1", "1.000", "2.000", ""},
	{'+', "-2.5", "2.5", "0.0", ""},
	{'%', "10", "3.5", "3.0", ""},
	{'%', "7.50", "2", "1.50", ""},
	{'%', "-7.5", "2", "-1.5", ""},
	{'%', "1", "3", "1", ""},
}

func TestBinaryScale(t *testing.T) {
	ops := map[byte]struct {
		fn func(a, b Datum) (Datum, error)
		op ArithOp
	}{'+': {Add, OpAdd}, '-': {Sub, OpSub}, '*': {Mul, OpMul}, '/': {Div, OpDiv}, '%': {Mod, OpMod}}
	for _, c := range binaryScaleCases {
		sql := "SELECT '" + c.a + "'::numeric " + string(c.op) + " '" + c.b + "'::numeric"
		a, ta := literal(t, c.a)
		b, tb := literal(t, c.b)
		o := ops[c.op]
		got, err := o.fn(a, b)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		checkScale(t, sql, got, ArithType(o.op, ta, tb), c.want, c.row)
	}
}

// SELECT fn(x) FROM (VALUES (v1), (v2), ...) t(x), the values written as
// integers (an int4 column) or as 'v'::numeric. avg is sum / count in
// numeric, as the planner builds it, and the sum passes through the
// reduction's output row first.
var aggScaleCases = []struct {
	fn     string
	values []string
	want   string
	row    string
}{
	{"avg", []string{"1", "2"}, "1.5000000000000000", ""},
	{"avg", []string{"1", "1"}, "1.00000000000000000000", ""},
	{"avg", []string{"1", "2", "3"}, "2.0000000000000000", ""},
	{"avg", []string{"-1", "-2"}, "-1.5000000000000000", ""},
	{"avg", []string{"0", "0"}, "0.00000000000000000000", ""},
	{"avg", []string{"5", "5"}, "5.0000000000000000", ""},
	{"avg", []string{"10", "20", "30"}, "20.0000000000000000", ""},
	{"avg", []string{"1", "2", "2"}, "1.6666666666666667", ""},
	{"avg", []string{"100000", "200000"}, "150000.000000000000", ""},
	{"avg", []string{"1.50", "2.25"}, "1.8750000000000000", ""},
	{"avg", []string{"1.5", "2.50"}, "2.0000000000000000", ""},
	{"avg", []string{"0.001", "0.002"}, "0.00150000000000000000", ""},
	{"avg", []string{"10.50", "5.25"}, "7.8750000000000000", ""},
	{"avg", []string{"7.00", "3.00"}, "5.0000000000000000", ""},
	{"avg", []string{"0.123", "0.456", "0.789"}, "0.45600000000000000000", ""},
	// 25000/2, 1.10/1 and 2.126/2: sum and count with the same leading
	// base-10000 digit.
	{"avg", []string{"12000", "13000"}, "12500.0000000000000000", "12500.000000000000"},
	{"avg", []string{"1.10"}, "1.10000000000000000000", "1.1000000000000000"},
	{"avg", []string{"2.125", "0.001"}, "1.06300000000000000000", "1.0630000000000000"},
	{"sum", []string{"1.5", "2.25"}, "3.75", ""},
	// A column whose values have different scales has the smallest.
	{"sum", []string{"1.50", "2.5"}, "4.00", "4.0"},
	{"sum", []string{"1", "2"}, "3", ""},
	{"sum", []string{"0.001", "-0.001"}, "0.000", ""},
	{"sum", []string{"1e3", "0.5"}, "1000.5", ""},
}

func TestAggregateScale(t *testing.T) {
	for _, c := range aggScaleCases {
		sql := c.fn + "(" + strings.Join(c.values, ", ") + ")"
		var sum Datum
		var col Type
		for i, v := range c.values {
			d, dt := literal(t, v)
			if i == 0 {
				sum, col = d, dt
				continue
			}
			// A column's type has the display scale all its values have.
			col = EitherType(col, dt)
			var err error
			if sum, err = Add(sum, d); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
		sumType := ArithType(OpAdd, col, col)
		if c.fn == "sum" {
			checkScale(t, sql, sum, sumType, c.want, c.row)
			continue
		}
		count, err := Cast(NewInt8(int64(len(c.values))), Numeric)
		if err != nil {
			t.Fatal(err)
		}
		sum = roundTrip(t, sum, sumType)
		avg, err := Div(sum, count)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		checkScale(t, sql, avg, ArithType(OpDiv, CastType(sumType, Numeric), CastType(Int8, Numeric)), c.want, c.row)
	}
}

// SELECT round('x'::numeric, n), floor('x'::numeric), ceil('x'::numeric).
// Their types are expr's: numeric with display scale max(n, 0).
var roundScaleCases = []struct {
	fn   string
	x    string
	n    int64
	want string
}{
	{"round", "1.2345", 2, "1.23"},
	{"round", "1.5", 3, "1.500"},
	{"round", "1234.5", -2, "1200"},
	{"round", "12345.678", -2, "12300"},
	{"round", "2.5", 0, "3"},
	{"round", "-2.5", 0, "-3"},
	{"round", "-0.005", 2, "-0.01"},
	{"round", "0.5", 0, "1"},
	{"floor", "1.50", 0, "1"},
	{"floor", "-1.5", 0, "-2"},
	{"floor", "-0.5", 0, "-1"},
	{"ceil", "-0.5", 0, "0"},
	{"ceil", "1.000", 0, "1"},
	{"ceil", "1.001", 0, "2"},
	{"round", "Infinity", 2, "Infinity"},
	{"floor", "-Infinity", 0, "-Infinity"},
	{"ceil", "NaN", 0, "NaN"},
}

func TestRoundScale(t *testing.T) {
	for _, c := range roundScaleCases {
		x, _ := literal(t, c.x)
		var got Datum
		switch c.fn {
		case "round":
			got = RoundNumeric(x, c.n)
		case "floor", "ceil":
			got = FloorNumeric(x, c.fn == "ceil")
		}
		sql := fmt.Sprintf("%s(%s)", c.fn, c.x)
		if c.fn == "round" {
			sql = fmt.Sprintf("round(%s, %d)", c.x, c.n)
		}
		checkScale(t, sql, got, Numeric.WithDisplayScale(int(max(c.n, 0))), c.want, "")
	}
}

// SELECT 'v'::from::to. A cast of a constant is folded to a literal, so
// text is read as a literal is; a numeric column keeps its scale.
var castScaleCases = []struct {
	from Type
	v    string
	to   Type
	want string
}{
	{Int4, "42", Numeric, "42"},
	{Int4, "-7", Numeric, "-7"},
	{Float8, "0.1", Numeric, "0.1"},
	{Float8, "2.5", Numeric, "2.5"},
	{Float8, "1e20", Numeric, "100000000000000000000"},
	{Float8, "1.0e-5", Numeric, "0.00001"},
	{Float8, "-123.456", Numeric, "-123.456"},
	{Float4, "123.456", Numeric, "123.456"},
	{Text, "1.50", Numeric, "1.50"},
	{Text, "  -0.000 ", Numeric, "0.000"},
	{Text, "1e3", Numeric, "1000"},
	{Text, "1.5e-3", Numeric, "0.0015"},
	{Numeric, "1.005", NumericOf(10, 2), "1.01"},
	{Numeric, "2", NumericOf(5, 3), "2.000"},
	{Numeric, "-1.2349", NumericOf(10, 2), "-1.23"},
	{Numeric, "2.5", NumericOf(3, 0), "3"},
	{Numeric, "1.50", Numeric, "1.50"},
}

func TestCastScale(t *testing.T) {
	for _, c := range castScaleCases {
		sql := fmt.Sprintf("'%s'::%s::%s", c.v, c.from, c.to)
		var v Datum
		var vt Type
		if c.from == Numeric {
			v, vt = literal(t, c.v)
		} else {
			var err error
			if v, err = ParseText(c.from, c.v); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			vt = c.from
		}
		got, err := Cast(v, c.to)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		typ := CastType(vt, c.to)
		if c.from == Text {
			_, typ = literal(t, c.want)
		}
		checkScale(t, sql, got, typ, c.want, "")
	}
}

// TestRoundLimits checks round's display scale beyond what fits a table:
// PostgreSQL 15.18 gives length(round(1.5, n)::text) as below, the scale
// being capped at 16383, and round(1.5, -200000) is 0.
func TestRoundLimits(t *testing.T) {
	x, _ := literal(t, "1.5")
	for _, c := range []struct{ n, length int64 }{{1100, 1102}, {3000, 3002}, {20000, 16385}} {
		if got := int64(len(FormatText(RoundNumeric(x, c.n)))); got != c.length {
			t.Errorf("length(round(1.5, %d)::text) = %d, want %d", c.n, got, c.length)
		}
	}
	if got := FormatText(RoundNumeric(x, -200000)); got != "0" {
		t.Errorf("round(1.5, -200000) = %s, want 0", got)
	}
}
