package planner

import (
	"bytes"
	"testing"

	"freshet/repr"
	"freshet/sqlerr"
)

// TestCastApplyMatchesExpression: folding a cast of a constant by
// hCast.apply gives what the cast's expression gives when it runs, value
// and error alike, for assignment and explicit casts, types with and
// without modifiers, casts that use the session zone and NULL.
func TestCastApplyMatchesExpression(t *testing.T) {
	typ := func(name string, mods ...int32) repr.Type {
		tt, err := repr.TypeFromName(name, mods)
		if err != nil {
			t.Fatal(err)
		}
		return tt
	}
	val := func(tt repr.Type, text string) hLiteral {
		d, err := repr.ParseText(tt, text)
		if err != nil {
			t.Fatal(err)
		}
		return hLiteral{v: d, t: tt}
	}
	zone, err := repr.LoadZone("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	num := typ("numeric")
	lits := []hLiteral{
		val(repr.Int4, "1"), val(repr.Int4, "-40000"), val(repr.Int4, "2147483647"),
		val(repr.Int8, "9223372036854775807"), val(repr.Int8, "2147483648"),
		val(num, "1.005"), val(num, "-999.995"), val(num, "999.994"), val(num, "2.5"), val(num, "-2.5"),
		val(num, "12345.678"), val(num, "0.0"), val(num, "1e20"),
		val(repr.Float8, "1.5"), val(repr.Float8, "1e300"),
		val(repr.Text, "abcd"), val(repr.Text, "ab"),
		val(repr.Bool, "true"),
		val(repr.Date, "2024-03-10"), val(repr.Timestamp, "2024-03-10 02:30:00"),
		val(repr.TimestampTZ, "2024-03-10 07:30:00+00"),
		{v: repr.Null, t: repr.Int4}, {v: repr.Null, t: num},
	}
	targets := []repr.Type{
		repr.Int2, repr.Int4, repr.Int8, num, typ("numeric", 5, 2), typ("numeric", 10, 2), typ("numeric", 4, 0),
		repr.Float4, repr.Float8, repr.Text, typ("varchar", 3), typ("bpchar", 2), repr.Bool,
		repr.Date, repr.Timestamp, repr.TimestampTZ,
	}
	for _, l := range lits {
		for _, to := range targets {
			if repr.TypeCastContext(l.t, to) < repr.CastExplicit {
				continue
			}
			for _, assign := range []bool{true, false} {
				c := hCast{arg: l, to: to, assign: assign, zone: zone}
				got, gotErr := castConstant(c, l)
				e, err := scalarToExpr(c, nil)
				if err != nil {
					t.Fatal(err)
				}
				want, wantErr := e.Eval(nil)
				name := l.v.String() + "::" + l.t.String() + " to " + to.String()
				if assign {
					name += " (assignment)"
				}
				if sqlerr.Code(gotErr) != sqlerr.Code(wantErr) || (gotErr == nil) != (wantErr == nil) {
					t.Errorf("%s: error %v, want %v", name, gotErr, wantErr)
					continue
				}
				if gotErr != nil {
					if gotErr.Error() != wantErr.Error() {
						t.Errorf("%s: error %q, want %q", name, gotErr, wantErr)
					}
					continue
				}
				if got.t != to || !bytes.Equal(repr.PackRow(got.v), repr.PackRow(want)) || got.v.String() != want.String() {
					t.Errorf("%s: %v (%v), want %v (%v)", name, got.v, got.t, want, to)
				}
			}
		}
	}
}
