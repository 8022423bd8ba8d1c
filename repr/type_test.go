package repr

import (
	"testing"

	"freshet/sqlerr"
)

func TestTypeProperties(t *testing.T) {
	tests := []struct {
		typ      Type
		oid      uint32
		name     string
		str      string
		typlen   int16
		typmod   int32
		category byte
	}{
		{Unknown, 705, "unknown", "unknown", -2, -1, 'X'},
		{Bool, 16, "bool", "boolean", 1, -1, 'B'},
		{Int2, 21, "int2", "smallint", 2, -1, 'N'},
		{Int4, 23, "int4", "integer", 4, -1, 'N'},
		{Int8, 20, "int8", "bigint", 8, -1, 'N'},
		{Float4, 700, "float4", "real", 4, -1, 'N'},
		{Float8, 701, "float8", "double precision", 8, -1, 'N'},
		{Numeric, 1700, "numeric", "numeric", -1, -1, 'N'},
		{NumericOf(10, 2), 1700, "numeric", "numeric(10,2)", -1, 655366, 'N'},
		{NumericOf(2, -3), 1700, "numeric", "numeric(2,-3)", -1, 133121, 'N'},
		{NumericOf(1000, 1000), 1700, "numeric", "numeric(1000,1000)", -1, 65537004, 'N'},
		{Numeric.WithDisplayScale(2), 1700, "numeric", "numeric", -1, -1, 'N'},
		{Text, 25, "text", "text", -1, -1, 'S'},
		{Varchar, 1043, "varchar", "character varying", -1, -1, 'S'},
		{VarcharOf(10), 1043, "varchar", "character varying(10)", -1, 14, 'S'},
		{Bpchar, 1042, "bpchar", "bpchar", -1, -1, 'S'},
		{BpcharOf(5), 1042, "bpchar", "character(5)", -1, 9, 'S'},
		{BpcharOf(1), 1042, "bpchar", "character(1)", -1, 5, 'S'},
		{Date, 1082, "date", "date", 4, -1, 'D'},
		{Timestamp, 1114, "timestamp", "timestamp without time zone", 8, -1, 'D'},
		{TimestampOf(3), 1114, "timestamp", "timestamp(3) without time zone", 8, 3, 'D'},
		{TimestampTZ, 1184, "timestamptz", "timestamp with time zone", 8, -1, 'D'},
		{TimestampTZOf(0), 1184, "timestamptz", "timestamp(0) with time zone", 8, 0, 'D'},
		{Interval, 1186, "interval", "interval", 16, -1, 'T'},
	}
	for _, tt := range tests {
		if got := tt.typ.OID(); got != tt.oid {
			t.Errorf("%s.OID() = %d, want %d", tt.str, got, tt.oid)
		}
		if got := tt.typ.Name(); got != tt.name {
			t.Errorf("%s.Name() = %q, want %q", tt.str, got, tt.name)
		}
		if got := tt.typ.String(); got != tt.str {
			t.Errorf("String() = %q, want %q", got, tt.str)
		}
		if got := tt.typ.Typlen(); got != tt.typlen {
			t.Errorf("%s.Typlen() = %d, want %d", tt.str, got, tt.typlen)
		}
		if got := tt.typ.Typmod(); got != tt.typmod {
			t.Errorf("%s.Typmod() = %d, want %d", tt.str, got, tt.typmod)
		}
		if got := tt.typ.Category(); got != tt.category {
			t.Errorf("%s.Category() = %c, want %c", tt.str, got, tt.category)
		}
		if tt.typ.Base() != (Type{kind: tt.typ.Kind()}) {
			t.Errorf("%s.Base() keeps modifiers", tt.str)
		}
	}
	if (Type{}) != Unknown {
		t.Errorf("the zero Type is not Unknown")
	}
}

func TestTypeModifiers(t *testing.T) {
	if n, ok := VarcharOf(10).Length(); !ok || n != 10 {
		t.Errorf("VarcharOf(10).Length() = %d, %v", n, ok)
	}
	if _, ok := Varchar.Length(); ok {
		t.Errorf("Varchar has a length")
	}
	if p, s, ok := NumericOf(10, 2).NumericPrecision(); !ok || p != 10 || s != 2 {
		t.Errorf("NumericOf(10, 2).NumericPrecision() = %d, %d, %v", p, s, ok)
	}
	if _, _, ok := Numeric.WithDisplayScale(3).NumericPrecision(); ok {
		t.Errorf("a display scale is not a precision")
	}
	if p, ok := TimestampOf(0).TimePrecision(); !ok || p != 0 {
		t.Errorf("TimestampOf(0).TimePrecision() = %d, %v", p, ok)
	}
	for _, tt := range []struct {
		typ  Type
		want int
	}{
		{Numeric, 0}, {NumericOf(10, 2), 2}, {NumericOf(2, -3), 0},
		{Numeric.WithDisplayScale(4), 4}, {NumericOf(5, 1).WithDisplayScale(4), 1}, {Int4.WithDisplayScale(4), 0},
	} {
		if got := tt.typ.DisplayScale(); got != tt.want {
			t.Errorf("%s.DisplayScale() = %d, want %d", tt.typ, got, tt.want)
		}
	}
}

func TestTypeFromName(t *testing.T) {
	tests := []struct {
		name string
		mods []int32
		want Type
		code string
		msg  string
	}{
		{"int4", nil, Int4, "", ""},
		{"pg_catalog.int4", nil, Int4, "", ""},
		{"pg_catalog.int8", nil, Int8, "", ""},
		{"pg_catalog.int2", nil, Int2, "", ""},
		{"integer", nil, Int4, "", ""},
		{"pg_catalog.bool", nil, Bool, "", ""},
		{"pg_catalog.float4", nil, Float4, "", ""},
		{"pg_catalog.float8", nil, Float8, "", ""},
		{"float", []int32{24}, Float4, "", ""},
		{"float", []int32{25}, Float8, "", ""},
		{"float", []int32{0}, Type{}, "22023", "precision for type float must be at least 1 bit"},
		{"float", []int32{54}, Type{}, "22023", "precision for type float must be less than 54 bits"},
		{"pg_catalog.numeric", nil, Numeric, "", ""},
		{"pg_catalog.numeric", []int32{10, 2}, NumericOf(10, 2), "", ""},
		{"pg_catalog.numeric", []int32{10}, NumericOf(10, 0), "", ""},
		{"pg_catalog.numeric", []int32{2, -3}, NumericOf(2, -3), "", ""},
		{"pg_catalog.numeric", []int32{0}, Type{}, "22023", "NUMERIC precision 0 must be between 1 and 1000"},
		{"pg_catalog.numeric", []int32{5, -1001}, Type{}, "22023", "NUMERIC scale -1001 must be between -1000 and 1000"},
		{"pg_catalog.numeric", []int32{5, 6, 7}, Type{}, "22023", "invalid NUMERIC type modifier"},
		{"text", nil, Text, "", ""},
		{"pg_catalog.varchar", nil, Varchar, "", ""},
		{"pg_catalog.varchar", []int32{10}, VarcharOf(10), "", ""},
		{"pg_catalog.varchar", []int32{0}, Type{}, "22023", "length for type varchar must be at least 1"},
		{"pg_catalog.varchar", []int32{10485761}, Type{}, "22023", "length for type varchar cannot exceed 10485760"},
		{"pg_catalog.bpchar", []int32{1}, BpcharOf(1), "", ""},
		{"bpchar", nil, Bpchar, "", ""},
		{"pg_catalog.bpchar", []int32{0}, Type{}, "22023", "length for type char must be at least 1"},
		{"date", nil, Date, "", ""},
		{"pg_catalog.timestamp", nil, Timestamp, "", ""},
		{"pg_catalog.timestamp", []int32{3}, TimestampOf(3), "", ""},
		{"pg_catalog.timestamp", []int32{7}, TimestampOf(6), "", ""},
		{"pg_catalog.timestamptz", []int32{-1}, Type{}, "22023", "TIMESTAMP(-1) WITH TIME ZONE precision must not be negative"},
		{"pg_catalog.timestamp", []int32{-1}, Type{}, "22023", "TIMESTAMP(-1) precision must not be negative"},
		{"timestamptz", nil, TimestampTZ, "", ""},
		{"pg_catalog.interval", nil, Interval, "", ""},
		{"pg_catalog.interval", []int32{3}, Type{}, "0A000", "interval type modifiers are not supported"},
		{"int4", []int32{3}, Type{}, "42601", `type modifier is not allowed for type "int4"`},
		{"pg_catalog.float8", []int32{3}, Type{}, "42601", `type modifier is not allowed for type "pg_catalog.float8"`},
		{"unknown", nil, Unknown, "", ""},
		{"foo", nil, Type{}, "42704", `type "foo" does not exist`},
		{"public.int4", nil, Type{}, "42704", `type "public.int4" does not exist`},
		{"jsonb", nil, JSONBType, "", ""},
		{"time", nil, Time, "", ""},
		{"time", []int32{3}, TimeOf(3), "", ""},
		{"time", []int32{9}, TimeOf(6), "", ""},
		{"time", []int32{-1}, Type{}, "22023", "TIME(-1) precision must not be negative"},
		{"_time", []int32{2}, ArrayOf(TimeOf(2)), "", ""},
		{"char", nil, Char, "", ""},
		{"pg_catalog.name", nil, Name, "", ""},
		{"name", []int32{3}, Type{}, "42601", `type modifier is not allowed for type "name"`},
		{"bytea", nil, Bytea, "", ""},
		{"pg_catalog.uuid", nil, UUID, "", ""},
		{"_uuid", nil, ArrayOf(UUID), "", ""},
		{"uuid", []int32{3}, Type{}, "42601", `type modifier is not allowed for type "uuid"`},
		{"timetz", nil, Type{}, "0A000", `type "timetz" is not supported`},
	}
	for _, tt := range tests {
		got, err := TypeFromName(tt.name, tt.mods)
		if tt.code != "" {
			if err == nil || sqlerr.Code(err) != tt.code || err.Error() != tt.msg {
				t.Errorf("TypeFromName(%q, %v) = %v, %v (%s); want error %s %q",
					tt.name, tt.mods, got, err, sqlerr.Code(err), tt.code, tt.msg)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("TypeFromName(%q, %v) = %v, %v; want %v", tt.name, tt.mods, got, err, tt.want)
		}
	}
}

// TestTypeNameRoundTrip checks that every type's String reads back.
func TestTypeNameRoundTrip(t *testing.T) {
	types := []Type{Unknown, Bool, Int2, Int4, Int8, Float4, Float8, Numeric, Text, Varchar, Bpchar,
		Date, Timestamp, TimestampTZ, Interval, UUID, Bytea}
	for _, typ := range types {
		got, err := TypeFromName(typ.String(), nil)
		if err != nil || got != typ {
			t.Errorf("TypeFromName(%q) = %v, %v", typ.String(), got, err)
		}
		if got, err := TypeFromName(typ.Name(), nil); err != nil || got != typ {
			t.Errorf("TypeFromName(%q) = %v, %v", typ.Name(), got, err)
		}
	}
}

func TestCastContextOf(t *testing.T) {
	tests := []struct {
		from, to Kind
		want     CastContext
	}{
		{KindInt4, KindInt8, CastImplicit},
		{KindInt8, KindInt4, CastAssignment},
		{KindInt4, KindNumeric, CastImplicit},
		{KindNumeric, KindFloat8, CastImplicit},
		{KindFloat8, KindNumeric, CastAssignment},
		{KindInt4, KindBool, CastExplicit},
		{KindInt8, KindBool, CastNone},
		{KindInt4, KindText, CastAssignment},
		{KindText, KindInt4, CastExplicit},
		{KindVarchar, KindText, CastImplicit},
		{KindDate, KindTimestampTZ, CastImplicit},
		{KindTimestampTZ, KindTimestamp, CastAssignment},
		{KindDate, KindInt4, CastNone},
		{KindUnknown, KindDate, CastImplicit},
		{KindNumeric, KindNumeric, CastImplicit},
		{KindText, KindUUID, CastExplicit},
		{KindUUID, KindText, CastAssignment},
		{KindBytea, KindText, CastAssignment},
		{KindText, KindBytea, CastExplicit},
		{KindUUID, KindBytea, CastNone},
		{KindUnknown, KindBytea, CastImplicit},
	}
	for _, tt := range tests {
		if got := CastContextOf(tt.from, tt.to); got != tt.want {
			t.Errorf("CastContextOf(%s, %s) = %s, want %s", tt.from, tt.to, got, tt.want)
		}
	}
}

func TestTypeFromOID(t *testing.T) {
	for _, want := range []Type{Bool, Int2, Int4, Int8, Float4, Float8, Numeric, Text, Varchar, Bpchar, Date, Timestamp, TimestampTZ, Interval, Unknown,
		UUID, Bytea, ArrayOf(UUID), ArrayOf(Bytea), Time, ArrayOf(Time)} {
		got, ok := TypeFromOID(want.OID())
		if !ok || got != want {
			t.Errorf("TypeFromOID(%d) = %v, %v; want %v", want.OID(), got, ok, want)
		}
	}
	// PostgreSQL 15's OIDs.
	for oid, want := range map[uint32]Type{17: Bytea, 1001: ArrayOf(Bytea), 2950: UUID, 2951: ArrayOf(UUID), 1083: Time, 1183: ArrayOf(Time)} {
		if got, ok := TypeFromOID(oid); !ok || got != want {
			t.Errorf("TypeFromOID(%d) = %v, %v; want %v", oid, got, ok, want)
		}
	}
	if _, ok := TypeFromOID(1266); ok {
		t.Error("timetz's oid maps to a type")
	}
}
