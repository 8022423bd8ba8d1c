package repr

import (
	"testing"

	"freshet/sqlerr"
)

func TestOIDText(t *testing.T) {
	for _, c := range []struct {
		typ     Type
		in, out string
		code    string
	}{
		{OID, "0", "0", ""},
		{OID, " 16384 ", "16384", ""},
		{OID, "-1", "4294967295", ""},
		{OID, "-2147483648", "2147483648", ""},
		{OID, "4294967295", "4294967295", ""},
		{OID, "4294967296", "", sqlerr.NumericValueOutOfRange},
		{OID, "-2147483649", "", sqlerr.NumericValueOutOfRange},
		{OID, "x", "", sqlerr.InvalidTextRepresentation},
		{OID, "", "", sqlerr.InvalidTextRepresentation},
		{Regclass, "1259", "1259", ""},
		{Regclass, "-", "0", ""},
		{Regclass, "orders", "", sqlerr.FeatureNotSupported},
		{Regtype, "23", "23", ""},
	} {
		d, err := ParseText(c.typ, c.in)
		if (c.code == "" && (err != nil || FormatText(d) != c.out)) || (c.code != "" && sqlerr.Code(err) != c.code) {
			t.Errorf("ParseText(%s, %q) = %q, %v (%q); want %q %q", c.typ, c.in, FormatText(d), err, sqlerr.Code(err), c.out, c.code)
		}
	}
}

func TestOIDCastsAndOrder(t *testing.T) {
	cast := func(d Datum, to Type) string {
		t.Helper()
		v, err := Cast(d, to)
		if err != nil {
			return sqlerr.Code(err)
		}
		return FormatText(v)
	}
	for _, c := range []struct {
		d    Datum
		to   Type
		want string
	}{
		{NewInt4(-1), OID, "4294967295"},
		{NewInt2(7), OID, "7"},
		{NewInt8(4294967295), OID, "4294967295"},
		{NewInt8(4294967296), OID, sqlerr.NumericValueOutOfRange},
		{NewInt8(-1), OID, sqlerr.NumericValueOutOfRange},
		{NewOID(KindOID, 4294967295), Int4, "-1"},
		{NewOID(KindOID, 4294967295), Int8, "4294967295"},
		{NewOID(KindRegclass, 1259), OID, "1259"},
		{NewOID(KindOID, 23), Regtype, "23"},
		{NewOID(KindOID, 23), Text, "23"},
		{NewText("26"), OID, "26"},
	} {
		if got := cast(c.d, c.to); got != c.want {
			t.Errorf("%v::%s = %s, want %s", c.d, c.to, got, c.want)
		}
	}
	if TypeCastContext(Int4, OID) != CastImplicit || TypeCastContext(OID, Int8) != CastAssignment ||
		TypeCastContext(OID, Regclass) != CastImplicit || TypeCastContext(Text, Regclass) != CastExplicit {
		t.Fatal("OID cast contexts")
	}
	// Unsigned order, in datums and in the row encoding.
	small, big := NewOID(KindOID, 7), NewOID(KindOID, 4294967295)
	if Compare(small, big) >= 0 || PackRow(small).Compare(PackRow(big)) >= 0 {
		t.Fatal("oid 7 does not sort before 4294967295")
	}
	ds, err := PackRow(big, NewOID(KindRegclass, 16390)).Datums([]Type{OID, Regclass})
	if err != nil || ds[0].Int() != 4294967295 || ds[1].Kind() != KindRegclass || ds[1].Int() != 16390 {
		t.Fatalf("row round trip: %v, %v", ds, err)
	}
	if OID.OID() != 26 || Regclass.OID() != 2205 || Regclass.Name() != "regclass" || ArrayOf(OID).OID() != 1028 || OID.Typlen() != 4 {
		t.Fatal("pg_type facts of the OID types")
	}
}
