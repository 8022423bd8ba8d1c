package repr

import (
	"testing"

	"freshet/sqlerr"
)

// Arrays sort as PostgreSQL 15 sorts int[] (checked with ORDER BY over
// these values): element by element, NULL elements last, a prefix first.
func init() {
	orderCases = append(orderCases, struct {
		typ    Type
		values []rankedValue
	}{ArrayOf(Int4), []rankedValue{
		{"{}", false, 1},
		{"{-5,3}", false, 2},
		{"{1}", false, 3},
		{"{1,2}", false, 4},
		{"{1,2,0}", false, 5},
		{"{1,NULL}", false, 6},
		{"{2}", false, 7},
		{"{NULL}", false, 8},
		{" { 2 } ", false, 7},
		{"", true, 9},
	}}, struct {
		typ    Type
		values []rankedValue
	}{ArrayOf(Text), []rankedValue{
		{`{"",a}`, false, 1},
		{`{a}`, false, 2},
		{`{a,""}`, false, 3},
		{`{"a\0"}`, false, 4},
		{`{ab}`, false, 5},
	}})
}

func TestArrayText(t *testing.T) {
	for _, c := range []struct {
		typ     Type
		in, out string
	}{
		{ArrayOf(Int4), "{}", "{}"},
		{ArrayOf(Int4), " { 1 , -2,NULL } ", "{1,-2,NULL}"},
		{ArrayOf(Text), `{a,"b c","","NULL",NULL, "x\\\"y", a b ,"{}"}`, `{a,"b c","","NULL",NULL,"x\\\"y","a b","{}"}`},
		{ArrayOf(Text), `{\a\,b}`, `{"a,b"}`},
		{ArrayOf(Bool), "{t,false}", "{t,f}"},
		{ArrayOf(Int2), "{32767}", "{32767}"},
		{ArrayOf(Numeric), "{1.5,-0.25}", "{1.5,-0.25}"},
		{ArrayOf(Date), "{2024-02-29}", "{2024-02-29}"},
		{ArrayOf(TimestampTZ), `{"2024-01-01 10:00:00+00"}`, `{"2024-01-01 10:00:00+00"}`},
	} {
		d, err := ParseText(c.typ, c.in)
		if err != nil {
			t.Fatalf("ParseText(%s, %q): %v", c.typ, c.in, err)
		}
		if got := FormatText(d); got != c.out {
			t.Errorf("%s %q prints %q, want %q", c.typ, c.in, got, c.out)
		}
		// The text form reads back as the same array, and the row
		// encoding decodes to it.
		again, err := ParseText(c.typ, c.out)
		if err != nil || Compare(again, d) != 0 {
			t.Errorf("%q does not read back: %v, %v", c.out, again, err)
		}
		row := PackRow(d, NewInt4(7))
		ds, err := row.Datums([]Type{c.typ, Int4})
		if err != nil || FormatText(ds[0]) != c.out || ds[1].Int() != 7 {
			t.Errorf("row round trip of %q: %v, %v", c.out, ds, err)
		}
	}
}

func TestArrayTextErrors(t *testing.T) {
	for _, c := range []struct {
		typ  Type
		in   string
		code string
	}{
		{ArrayOf(Int4), "{1,}", sqlerr.InvalidTextRepresentation},
		{ArrayOf(Int4), "{1", sqlerr.InvalidTextRepresentation},
		{ArrayOf(Int4), "1", sqlerr.InvalidTextRepresentation},
		{ArrayOf(Int4), "{1} x", sqlerr.InvalidTextRepresentation},
		{ArrayOf(Text), `{"a"b}`, sqlerr.InvalidTextRepresentation},
		{ArrayOf(Text), `{"a}`, sqlerr.InvalidTextRepresentation},
		{ArrayOf(Int4), "{,1}", sqlerr.InvalidTextRepresentation},
		{ArrayOf(Int4), "{x}", sqlerr.InvalidTextRepresentation},
		{ArrayOf(Int2), "{40000}", sqlerr.NumericValueOutOfRange},
		{ArrayOf(Int4), "{{1},{2}}", sqlerr.FeatureNotSupported},
		{ArrayOf(Int4), "[0:1]={1,2}", sqlerr.FeatureNotSupported},
	} {
		_, err := ParseText(c.typ, c.in)
		if sqlerr.Code(err) != c.code {
			t.Errorf("ParseText(%s, %q): %v, want %s", c.typ, c.in, err, c.code)
		}
	}
}

func TestArrayTypes(t *testing.T) {
	a := ArrayOf(VarcharOf(10))
	if a.OID() != 1015 || a.Name() != "_varchar" || a.String() != "character varying(10)[]" || a.Typmod() != 14 || !a.IsArray() {
		t.Fatalf("varchar(10)[]: oid %d name %s string %s typmod %d", a.OID(), a.Name(), a.String(), a.Typmod())
	}
	if a.Elem() != VarcharOf(10) || ArrayOf(a) != a || a.Base() != ArrayOf(Varchar) || a.Category() != 'A' {
		t.Fatalf("varchar(10)[]: elem %v, base %v", a.Elem(), a.Base())
	}
	if got, ok := TypeFromOID(1007); !ok || got != ArrayOf(Int4) {
		t.Fatalf("TypeFromOID(1007) = %v, %v", got, ok)
	}
	if got, err := TypeFromName("_int4", nil); err != nil || got != ArrayOf(Int4) {
		t.Fatalf("TypeFromName(_int4) = %v, %v", got, err)
	}
	if got := FormatType(1231, 655366, true); got != "numeric(10,2)[]" {
		t.Fatalf("format_type(numeric[]): %q", got)
	}
	if _, ok := TypeFromOID(0); ok {
		t.Fatal("TypeFromOID(0) names a type")
	}
}

func TestArrayCasts(t *testing.T) {
	d := mustParse(t, ArrayOf(Int4), "{1,NULL,3}")
	got, err := Cast(d, ArrayOf(Text))
	if err != nil || FormatText(got) != "{1,NULL,3}" || got.ArrayLen() != 3 {
		t.Fatalf("int4[] to text[]: %v, %v", got, err)
	}
	if _, err := Cast(mustParse(t, ArrayOf(Int8), "{1,99999}"), ArrayOf(Int2)); sqlerr.Code(err) != sqlerr.NumericValueOutOfRange {
		t.Fatalf("int8[] to int2[] out of range: %v", err)
	}
	s, err := Cast(d, Text)
	if err != nil || s.Text() != "{1,NULL,3}" {
		t.Fatalf("int4[] to text: %v, %v", s, err)
	}
}

func TestInt2Vector(t *testing.T) {
	d, err := ParseText(Int2Vector, " 3  1 ")
	if err != nil || FormatText(d) != "3 1" || !d.IsVector() || d.ArrayLen() != 2 {
		t.Fatalf("int2vector ' 3  1 ': %v, %v", d, err)
	}
	if Int2Vector.OID() != 22 || Int2Vector.Name() != "int2vector" || Int2Vector.String() != "int2vector" || Int2Vector.Elem() != Int2 {
		t.Fatalf("int2vector type: %d %s %s", Int2Vector.OID(), Int2Vector.Name(), Int2Vector.String())
	}
	if got, ok := TypeFromOID(22); !ok || got != Int2Vector {
		t.Fatalf("TypeFromOID(22) = %v", got)
	}
	ds, err := PackRow(d).Datums([]Type{Int2Vector})
	if err != nil || FormatText(ds[0]) != "3 1" {
		t.Fatalf("row round trip: %v, %v", ds, err)
	}
	a, err := Cast(d, ArrayOf(Int4))
	if err != nil || FormatText(a) != "{3,1}" || a.IsVector() {
		t.Fatalf("int2vector to int4[]: %v, %v", a, err)
	}
	if _, err := ParseText(Int2Vector, "1 x"); sqlerr.Code(err) != sqlerr.InvalidTextRepresentation {
		t.Fatalf("int2vector '1 x': %v", err)
	}
	if TypeCastContext(ArrayOf(Int2), Int2Vector) != CastExplicit || TypeCastContext(Int2Vector, ArrayOf(Int4)) != CastImplicit {
		t.Fatal("int2vector cast contexts")
	}
}

func TestOIDVector(t *testing.T) {
	d, err := ParseText(OIDVector, "1259 4294967295")
	if err != nil || FormatText(d) != "1259 4294967295" || !d.IsVector() {
		t.Fatalf("oidvector: %v, %v", d, err)
	}
	if OIDVector.OID() != 30 || OIDVector.ArrayOID() != 1013 || OIDVector.Name() != "oidvector" || OIDVector.Elem() != OID {
		t.Fatal("oidvector's type facts")
	}
	if got, err := TypeFromName("oidvector", nil); err != nil || got != OIDVector {
		t.Fatalf("TypeFromName(oidvector) = %v, %v", got, err)
	}
	ds, err := PackRow(d).Datums([]Type{OIDVector})
	if err != nil || FormatText(ds[0]) != "1259 4294967295" {
		t.Fatalf("row round trip: %v, %v", ds, err)
	}
}
