package repr

import (
	"testing"

	"freshet/sqlerr"
)

func TestJSON(t *testing.T) {
	d, err := ParseText(JSON, ` {"a": [1, 2.5, null]} `)
	if err != nil || FormatText(d) != ` {"a": [1, 2.5, null]} ` || d.Kind() != KindJSON {
		t.Fatalf("json kept as written: %v, %v", d, err)
	}
	for _, bad := range []string{"", "{", "x", `{"a" 1}`, "\xff"} {
		if _, err := ParseText(JSON, bad); sqlerr.Code(err) != sqlerr.InvalidTextRepresentation {
			t.Errorf("%q: %v, want 22P02", bad, err)
		}
	}
	ds, err := PackRow(d).Datums([]Type{JSON})
	if err != nil || ds[0].Kind() != KindJSON || FormatText(ds[0]) != FormatText(d) {
		t.Fatalf("row round trip: %v, %v", ds, err)
	}
	for _, c := range []struct {
		d    Datum
		want string
	}{
		{Null, "null"},
		{NewBool(true), "true"},
		{NewInt8(-3), "-3"},
		{NewFloat8(2.5), "2.5"},
		{mustParse(t, Float8, "NaN"), `"NaN"`},
		{NewText("a\"b\\c\n\x01"), `"a\"b\\c\n\u0001"`},
		{NewJSON(`{"x":1}`), `{"x":1}`},
		{NewArray(Int4, []Datum{NewInt4(1), Null}), "[1,null]"},
		{mustParse(t, TimestampTZ, "2024-01-02 03:04:05+00"), `"2024-01-02T03:04:05+00:00"`},
		{mustParse(t, Date, "2024-02-29"), `"2024-02-29"`},
	} {
		if got := string(AppendJSON(nil, c.d)); got != c.want {
			t.Errorf("AppendJSON(%v) = %s, want %s", c.d, got, c.want)
		}
	}
	if JSON.OID() != 114 || ArrayOf(JSON).OID() != 199 || TypeCastContext(Text, JSON) != CastExplicit || TypeCastContext(JSON, Text) != CastAssignment {
		t.Fatal("json's type facts")
	}
}
