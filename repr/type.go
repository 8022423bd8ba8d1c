package repr

import "strconv"

// Kind is the base type of a SQL type, without modifiers. The zero Kind
// is KindUnknown, the type of an untyped literal.
type Kind uint8

// The kinds of SQL type that repr supports, one per PostgreSQL base type.
const (
	KindUnknown Kind = iota
	KindBool
	KindInt2
	KindInt4
	KindInt8
	KindFloat4
	KindFloat8
	KindNumeric
	KindText
	KindVarchar
	KindBpchar
	KindDate
	KindTimestamp
	KindTimestampTZ
	KindInterval
	// KindArray is a one-dimensional array; its Type holds the element's
	// kind and modifiers (array.go).
	KindArray
	// KindOID and the reg* kinds hold object identifiers: unsigned 32-bit
	// integers (oid.go). A reg* value prints as the name of the object
	// it identifies; repr prints the number, and the planner, which
	// knows the catalog, the name.
	KindOID
	KindRegclass
	KindRegtype
	KindRegproc
	KindRegnamespace
	KindRegrole
	// KindJSON is json: the text of a JSON value, kept as written
	// (json.go).
	KindJSON
	// KindName is name, the type of identifiers in the catalog: text of
	// at most 63 bytes (longer input is cut, as PostgreSQL cuts it).
	// KindChar is "char", one byte (PostgreSQL's internal single-byte
	// type, of pg_class.relkind and the like; CHAR is bpchar). Both are
	// strings to the planner (IsString).
	KindName
	KindChar
	// KindUUID is uuid: 16 bytes, ordered bytewise (uuid.go). KindBytea
	// is bytea: a byte string, ordered bytewise with a prefix first
	// (bytea.go).
	KindUUID
	KindBytea
	// KindJSONB is jsonb: a JSON value parsed and normalized, held in
	// its row encoding (jsonb.go, jsonb_key.go).
	KindJSONB
	// KindTime is time without time zone: microseconds since midnight,
	// 0 to 24:00:00 inclusive (time.go).
	KindTime
	// KindEnum is a user-defined enum type: its Type carries the
	// type's OID and name, its datums their label and sort position
	// (enum.go).
	KindEnum
	numKinds
)

// NumKinds is the number of kinds: every Kind is below it.
const NumKinds = numKinds

// kindInfo is what pg_type says about a kind.
type kindInfo struct {
	oid, arrayOID uint32
	typname       string // pg_type.typname
	display       string // format_type without a modifier
	typlen        int16
	category      byte
	preferred     bool
}

var kinds = [numKinds]kindInfo{
	KindUnknown:     {705, 0, "unknown", "unknown", -2, 'X', false},
	KindBool:        {16, 1000, "bool", "boolean", 1, 'B', true},
	KindInt2:        {21, 1005, "int2", "smallint", 2, 'N', false},
	KindInt4:        {23, 1007, "int4", "integer", 4, 'N', false},
	KindInt8:        {20, 1016, "int8", "bigint", 8, 'N', false},
	KindFloat4:      {700, 1021, "float4", "real", 4, 'N', false},
	KindFloat8:      {701, 1022, "float8", "double precision", 8, 'N', true},
	KindNumeric:     {1700, 1231, "numeric", "numeric", -1, 'N', false},
	KindText:        {25, 1009, "text", "text", -1, 'S', true},
	KindVarchar:     {1043, 1015, "varchar", "character varying", -1, 'S', false},
	KindBpchar:      {1042, 1014, "bpchar", "bpchar", -1, 'S', false},
	KindDate:        {1082, 1182, "date", "date", 4, 'D', false},
	KindTimestamp:   {1114, 1115, "timestamp", "timestamp without time zone", 8, 'D', false},
	KindTimestampTZ: {1184, 1185, "timestamptz", "timestamp with time zone", 8, 'D', true},
	KindInterval:    {1186, 1187, "interval", "interval", 16, 'T', true},
	// An array type's OID and name are its element's typarray and
	// "_"+typname (see Type.OID, Type.Name).
	KindArray:        {0, 0, "anyarray", "anyarray", -1, 'A', false},
	KindOID:          {26, 1028, "oid", "oid", 4, 'N', false},
	KindRegclass:     {2205, 2210, "regclass", "regclass", 4, 'N', false},
	KindRegtype:      {2206, 2211, "regtype", "regtype", 4, 'N', false},
	KindRegproc:      {24, 1008, "regproc", "regproc", 4, 'N', false},
	KindRegnamespace: {4089, 4090, "regnamespace", "regnamespace", 4, 'N', false},
	KindRegrole:      {4096, 4097, "regrole", "regrole", 4, 'N', false},
	KindJSON:         {114, 199, "json", "json", -1, 'U', false},
	KindName:         {19, 1003, "name", "name", 64, 'S', false},
	KindChar:         {18, 1002, "char", "\"char\"", 1, 'Z', false},
	KindUUID:         {2950, 2951, "uuid", "uuid", 16, 'U', false},
	KindBytea:        {17, 1001, "bytea", "bytea", -1, 'U', false},
	KindJSONB:        {3802, 3807, "jsonb", "jsonb", -1, 'U', false},
	KindTime:         {1083, 1183, "time", "time without time zone", 8, 'D', false},
	// An enum type's OID and name are its own (see EnumType).
	KindEnum: {3500, 0, "anyenum", "anyenum", 4, 'E', false},
}

// String returns the kind's pg_type.typname, such as "int4".
func (k Kind) String() string {
	if k < numKinds {
		return kinds[k].typname
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// IsInt reports whether k is one of the integer kinds.
func (k Kind) IsInt() bool { return k == KindInt2 || k == KindInt4 || k == KindInt8 }

// IsFloat reports whether k is float4 or float8.
func (k Kind) IsFloat() bool { return k == KindFloat4 || k == KindFloat8 }

// IsString reports whether k holds character strings: text, varchar,
// bpchar, or the unknown type of a string literal.
func (k Kind) IsString() bool {
	return k == KindText || k == KindVarchar || k == KindBpchar || k == KindUnknown || k == KindName || k == KindChar
}

// Type is a SQL type: a Kind and its modifiers (the length of varchar(n)
// and char(n), the precision and scale of numeric(p,s), the precision of
// timestamp(p)). Types are small values compared with ==; two Types are
// equal when their kinds and modifiers are, and for unconstrained numeric
// their display scales (see WithDisplayScale and ArithType). The zero
// Type is Unknown.
type Type struct {
	kind Kind
	// prec is the fractional-second precision of timestamp(p),
	// timestamptz(p) and time(p) plus one; 0 means unconstrained (microseconds).
	// Invariant: 0..7, and 0 for other kinds.
	prec int8
	// scale is the scale of numeric(p,s) when width > 0, and otherwise the
	// minimum display scale of an unconstrained numeric (see
	// WithDisplayScale). Invariant: -1000..1000, and 0 for other kinds.
	scale int16
	// width is the length n of varchar(n) and char(n), or the precision p
	// of numeric(p,s); 0 means unconstrained. Invariant: 0..MaxLength for
	// the string kinds, 0..MaxNumericPrecision for numeric, 0 otherwise.
	width int32
	// rule says how a value of an unconstrained numeric whose scale
	// depends on the operands gets its digits back when read from a row
	// (see rowScale): a quotient's (ArithType), a variance's or a
	// standard deviation's. Invariant: scaleStatic for every other type.
	rule scaleRule
	// elem is the element kind of an array (kind KindArray), whose other
	// fields are then the element's modifiers. Invariant: KindUnknown
	// for every other kind, never KindArray.
	elem Kind
	// vector marks int2vector and oidvector: arrays with lower bound 0,
	// written as their elements separated by spaces (array.go).
	// Invariant: false but for KindArray with elem KindInt2 or KindOID.
	vector bool
	// enumOID and enumName are an enum type's pg_type OID and name as
	// format_type prints it (for an array of enums, its element's). Invariant: zero and empty
	// but for KindEnum and arrays of it.
	enumOID  uint32
	enumName string
}

// Limits on type modifiers, as in PostgreSQL.
const (
	// MaxLength is the largest n of varchar(n) and char(n).
	MaxLength = 10485760
	// MaxNumericPrecision is the largest p of numeric(p,s); the scale s
	// lies in [-MaxNumericPrecision, MaxNumericPrecision].
	MaxNumericPrecision = 1000
	// MaxTimePrecision is the largest p of timestamp(p).
	MaxTimePrecision = 6
)

// The types without modifiers.
var (
	OID          = Type{kind: KindOID}
	Regclass     = Type{kind: KindRegclass}
	Regtype      = Type{kind: KindRegtype}
	Name         = Type{kind: KindName}
	Char         = Type{kind: KindChar}
	Regproc      = Type{kind: KindRegproc}
	Regnamespace = Type{kind: KindRegnamespace}
	Regrole      = Type{kind: KindRegrole}
	JSON         = Type{kind: KindJSON}
	JSONBType    = Type{kind: KindJSONB}
	UUID         = Type{kind: KindUUID}
	Bytea        = Type{kind: KindBytea}
	Unknown      = Type{kind: KindUnknown}
	Bool         = Type{kind: KindBool}
	Int2         = Type{kind: KindInt2}
	Int4         = Type{kind: KindInt4}
	Int8         = Type{kind: KindInt8}
	Float4       = Type{kind: KindFloat4}
	Float8       = Type{kind: KindFloat8}
	Numeric      = Type{kind: KindNumeric}
	Text         = Type{kind: KindText}
	Varchar      = Type{kind: KindVarchar}
	Bpchar       = Type{kind: KindBpchar}
	Date         = Type{kind: KindDate}
	Timestamp    = Type{kind: KindTimestamp}
	TimestampTZ  = Type{kind: KindTimestampTZ}
	Interval     = Type{kind: KindInterval}
	Time         = Type{kind: KindTime}
)

// VarcharOf returns character varying(n). n must lie in 1..MaxLength;
// TypeFromName checks a user's n.
func VarcharOf(n int) Type { return Type{kind: KindVarchar, width: int32(n)} }

// BpcharOf returns character(n). n must lie in 1..MaxLength.
func BpcharOf(n int) Type { return Type{kind: KindBpchar, width: int32(n)} }

// NumericOf returns numeric(p,s). p must lie in 1..MaxNumericPrecision
// and s in -MaxNumericPrecision..MaxNumericPrecision.
func NumericOf(p, s int) Type { return Type{kind: KindNumeric, width: int32(p), scale: int16(s)} }

// TimestampOf returns timestamp(p) without time zone; p must lie in
// 0..MaxTimePrecision.
func TimestampOf(p int) Type { return Type{kind: KindTimestamp, prec: int8(p + 1)} }

// TimestampTZOf returns timestamp(p) with time zone; p must lie in
// 0..MaxTimePrecision.
func TimestampTZOf(p int) Type { return Type{kind: KindTimestampTZ, prec: int8(p + 1)} }

// TimeOf returns time(p) without time zone; p must lie in
// 0..MaxTimePrecision.
func TimeOf(p int) Type { return Type{kind: KindTime, prec: int8(p + 1)} }

// Kind returns t's base type.
func (t Type) Kind() Kind { return t.kind }

// OID returns the PostgreSQL object id of t's base type (pg_type.oid).
func (t Type) OID() uint32 {
	if t.vector {
		oid, _, _ := t.vectorFacts()
		return oid
	}
	if t.enumOID != 0 {
		if t.kind == KindArray {
			return enumArrayOID(t.enumOID)
		}
		return t.enumOID
	}
	if t.kind == KindArray {
		return kinds[t.elem].arrayOID
	}
	return kinds[t.kind].oid
}

// ArrayOID returns the OID of the array type over t (pg_type.typarray),
// or 0 if there is none (an array type has none).
func (t Type) ArrayOID() uint32 {
	if t.vector {
		_, array, _ := t.vectorFacts()
		return array
	}
	if t.kind == KindEnum && t.enumOID != 0 {
		return enumArrayOID(t.enumOID)
	}
	return kinds[t.kind].arrayOID
}

// Name returns pg_type.typname of t's base type, such as "int4", or
// "_int4" for an array of int4.
func (t Type) Name() string {
	if t.vector {
		_, _, name := t.vectorFacts()
		return name
	}
	if t.enumOID != 0 {
		if t.kind == KindArray {
			return "_" + t.enumName
		}
		return t.enumName
	}
	if t.kind == KindArray {
		return "_" + kinds[t.elem].typname
	}
	return kinds[t.kind].typname
}

// Typlen returns pg_type.typlen: the fixed size of a value in bytes, -1
// for variable-length types, -2 for unknown. RowDescription sends it.
func (t Type) Typlen() int16 { return kinds[t.kind].typlen }

// Category returns pg_type.typcategory ('N' numeric, 'S' string, ...),
// which drives implicit casts and the resolution of CASE and UNION.
func (t Type) Category() byte { return kinds[t.kind].category }

// Preferred reports whether t is the preferred type of its category
// (pg_type.typispreferred).
func (t Type) Preferred() bool { return kinds[t.kind].preferred }

// Base returns t without its modifiers: varchar for varchar(10),
// varchar[] for varchar(10)[].
func (t Type) Base() Type {
	return Type{kind: t.kind, elem: t.elem, vector: t.vector, enumOID: t.enumOID, enumName: t.enumName}
}

// Typmod returns PostgreSQL's type modifier (atttypmod) for t, or -1 when
// t has none: n+4 for varchar(n) and char(n), ((p<<16)|(s&0x7ff))+4 for
// numeric(p,s), p for timestamp(p).
func (t Type) Typmod() int32 {
	if t.kind == KindArray {
		return t.Elem().Typmod()
	}
	switch t.kind {
	case KindVarchar, KindBpchar:
		if t.width > 0 {
			return t.width + 4
		}
	case KindNumeric:
		if t.width > 0 {
			return (t.width<<16 | int32(t.scale)&0x7ff) + 4
		}
	case KindTimestamp, KindTimestampTZ, KindTime:
		if t.prec > 0 {
			return int32(t.prec - 1)
		}
	}
	return -1
}

// Length returns n for varchar(n) and char(n), and false for other
// types and for varchar and bpchar without a length.
func (t Type) Length() (n int, ok bool) {
	if (t.kind == KindVarchar || t.kind == KindBpchar) && t.width > 0 {
		return int(t.width), true
	}
	return 0, false
}

// NumericPrecision returns p and s for numeric(p,s), and false for
// unconstrained numeric and other types.
func (t Type) NumericPrecision() (p, s int, ok bool) {
	if t.kind == KindNumeric && t.width > 0 {
		return int(t.width), int(t.scale), true
	}
	return 0, 0, false
}

// IsUnconstrainedNumeric reports whether t is numeric without a
// precision and scale, whatever display scale it records.
func (t Type) IsUnconstrainedNumeric() bool { return t.kind == KindNumeric && t.width == 0 }

// TimePrecision returns p for timestamp(p), timestamptz(p) and time(p),
// and false for the unconstrained types (which keep microseconds) and
// other types.
func (t Type) TimePrecision() (p int, ok bool) {
	if (t.kind == KindTimestamp || t.kind == KindTimestampTZ || t.kind == KindTime) && t.prec > 0 {
		return int(t.prec - 1), true
	}
	return 0, false
}

// WithDisplayScale returns unconstrained numeric whose values print with
// at least s fractional digits. It exists because rows hold numerics in
// canonical form, without trailing zeros (see doc.go): the type of an
// expression whose display scale is known (a literal 1.50, a product of
// columns with known scales; see ArithType) records it here so that
// values read back from rows print as PostgreSQL prints them. The display
// scale is not part of the typmod: the type still prints and describes
// itself as "numeric". For other types, and for numeric(p,s), whose scale
// is always s, WithDisplayScale returns t unchanged. A negative s is
// taken as 0 and one above MaxNumericPrecision as MaxNumericPrecision.
func (t Type) WithDisplayScale(s int) Type {
	if t.kind != KindNumeric || t.width > 0 {
		return t
	}
	t.scale = int16(min(max(s, 0), MaxNumericPrecision))
	return t
}

// DisplayScale returns the least number of fractional digits with which
// values of a numeric type print: s for numeric(p,s) with s > 0, the
// scale set by WithDisplayScale for unconstrained numeric, 0 otherwise.
// The values of a quotient (see ArithType) may print with more.
func (t Type) DisplayScale() int {
	if t.kind != KindNumeric || t.scale < 0 {
		return 0
	}
	return int(t.scale)
}

// String returns t as PostgreSQL's format_type prints it with t's
// typmod: "integer", "character varying(10)", "numeric(10,2)",
// "timestamp(3) with time zone", "bpchar" (char without a length).
func (t Type) String() string {
	if t.vector {
		_, _, name := t.vectorFacts()
		return name
	}
	if t.kind == KindArray {
		return t.Elem().String() + "[]"
	}
	info := kinds[t.kind]
	switch t.kind {
	case KindEnum:
		if t.enumOID != 0 {
			return t.enumName
		}
	case KindVarchar, KindBpchar:
		if t.width > 0 {
			name := "character varying"
			if t.kind == KindBpchar {
				name = "character"
			}
			return name + "(" + strconv.Itoa(int(t.width)) + ")"
		}
	case KindNumeric:
		if t.width > 0 {
			return "numeric(" + strconv.Itoa(int(t.width)) + "," + strconv.Itoa(int(t.scale)) + ")"
		}
	case KindTimestamp, KindTimestampTZ:
		if t.prec > 0 {
			zone := " without time zone"
			if t.kind == KindTimestampTZ {
				zone = " with time zone"
			}
			return "timestamp(" + strconv.Itoa(int(t.prec-1)) + ")" + zone
		}
	case KindTime:
		if t.prec > 0 {
			return "time(" + strconv.Itoa(int(t.prec-1)) + ") without time zone"
		}
	}
	return info.display
}
