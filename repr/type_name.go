package repr

import (
	"strings"

	"freshet/sqlerr"
)

// typeNames maps the names under which PostgreSQL knows each supported
// type to its kind: pg_type.typname as pg_query gives it for keyword
// types ("int4", "bpchar") and the SQL spellings that format_type prints
// ("integer", "character varying"), so that String round-trips.
var typeNames = map[string]Kind{
	"unknown":                     KindUnknown,
	"bool":                        KindBool,
	"boolean":                     KindBool,
	"int2":                        KindInt2,
	"smallint":                    KindInt2,
	"int4":                        KindInt4,
	"int":                         KindInt4,
	"integer":                     KindInt4,
	"int8":                        KindInt8,
	"bigint":                      KindInt8,
	"float4":                      KindFloat4,
	"real":                        KindFloat4,
	"float8":                      KindFloat8,
	"double precision":            KindFloat8,
	"float":                       KindFloat8,
	"numeric":                     KindNumeric,
	"decimal":                     KindNumeric,
	"text":                        KindText,
	"varchar":                     KindVarchar,
	"character varying":           KindVarchar,
	"bpchar":                      KindBpchar,
	"character":                   KindBpchar,
	"date":                        KindDate,
	"timestamp":                   KindTimestamp,
	"timestamp without time zone": KindTimestamp,
	"timestamptz":                 KindTimestampTZ,
	"timestamp with time zone":    KindTimestampTZ,
	"interval":                    KindInterval,
	"time":                        KindTime,
	"time without time zone":      KindTime,
	"oid":                         KindOID,
	"regclass":                    KindRegclass,
	"regtype":                     KindRegtype,
	"regproc":                     KindRegproc,
	"regnamespace":                KindRegnamespace,
	"regrole":                     KindRegrole,
	"json":                        KindJSON,
	"jsonb":                       KindJSONB,
	"name":                        KindName,
	"char":                        KindChar,
	"uuid":                        KindUUID,
	"bytea":                       KindBytea,
}

// int2vector and oidvector are types of their own names (TypeFromName),
// not kinds.

// unsupportedTypes are PostgreSQL types that repr does not implement yet.
// Naming one is 0A000 rather than 42704, which would claim that the type
// does not exist. "char" is PostgreSQL's one-byte internal type; the SQL
// keyword CHAR arrives from pg_query as bpchar.
var unsupportedTypes = map[string]bool{
	"timetz": true, "money": true, "inet": true, "cidr": true,
	"macaddr": true, "bit": true, "varbit": true, "xml": true, "point": true,
	"regprocedure": true, "regoper": true, "regoperator": true, "regconfig": true,
	"regdictionary": true, "regcollation": true, "record": true, "void": true, "tsvector": true,
}

// TypeFromName returns the type that a type name and its modifiers
// denote, as pg_query gives them in a TypeName node: the name is the
// last element of TypeName.Names, optionally qualified with
// "pg_catalog.", and mods are the integer values of TypeName.Typmods.
// Errors are PostgreSQL's: 42704 for an unknown name, 42601 for
// modifiers on a type that takes none, 22023 for modifiers out of range,
// and 0A000 for types repr does not support yet.
func TypeFromName(name string, mods []int32) (Type, error) {
	base := strings.TrimPrefix(name, "pg_catalog.")
	if base == "int2vector" || base == "oidvector" {
		if len(mods) > 0 {
			return Type{}, sqlerr.New(sqlerr.SyntaxError, "type modifier is not allowed for type %q", base)
		}
		if base == "oidvector" {
			return OIDVector, nil
		}
		return Int2Vector, nil
	}
	if elem, ok := strings.CutPrefix(base, "_"); ok {
		// PostgreSQL names an array type "_" and its element's typname.
		if k, ok := typeNames[elem]; ok && kinds[k].typname == elem && kinds[k].arrayOID != 0 {
			t, err := TypeFromName(elem, mods)
			return ArrayOf(t), err
		}
	}
	kind, ok := typeNames[base]
	if !ok {
		if unsupportedTypes[base] {
			return Type{}, sqlerr.New(sqlerr.FeatureNotSupported, "type %q is not supported", base)
		}
		return Type{}, sqlerr.New(sqlerr.UndefinedObject, "type %q does not exist", name)
	}
	t := Type{kind: kind}
	if len(mods) == 0 {
		return t, nil
	}
	switch kind {
	case KindVarchar, KindBpchar:
		typname := "varchar"
		if kind == KindBpchar {
			typname = "char"
		}
		if len(mods) != 1 {
			return Type{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid type modifier")
		}
		switch n := mods[0]; {
		case n < 1:
			return Type{}, sqlerr.New(sqlerr.InvalidParameterValue, "length for type %s must be at least 1", typname)
		case n > MaxLength:
			return Type{}, sqlerr.New(sqlerr.InvalidParameterValue, "length for type %s cannot exceed %d", typname, MaxLength)
		default:
			t.width = n
		}
	case KindNumeric:
		if len(mods) > 2 {
			return Type{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid NUMERIC type modifier")
		}
		p, s := mods[0], int32(0)
		if len(mods) == 2 {
			s = mods[1]
		}
		if p < 1 || p > MaxNumericPrecision {
			return Type{}, sqlerr.New(sqlerr.InvalidParameterValue,
				"NUMERIC precision %d must be between 1 and %d", p, MaxNumericPrecision)
		}
		if s < -MaxNumericPrecision || s > MaxNumericPrecision {
			return Type{}, sqlerr.New(sqlerr.InvalidParameterValue,
				"NUMERIC scale %d must be between %d and %d", s, -MaxNumericPrecision, MaxNumericPrecision)
		}
		t.width, t.scale = p, int16(s)
	case KindFloat8:
		// FLOAT(p) arrives from pg_query already resolved to float4 or
		// float8; accept the spelled-out form too.
		if base != "float" {
			return Type{}, sqlerr.New(sqlerr.SyntaxError, "type modifier is not allowed for type %q", name)
		}
		if len(mods) != 1 {
			return Type{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid type modifier")
		}
		switch p := mods[0]; {
		case p < 1:
			return Type{}, sqlerr.New(sqlerr.InvalidParameterValue, "precision for type float must be at least 1 bit")
		case p <= 24:
			return Float4, nil
		case p <= 53:
			return Float8, nil
		default:
			return Type{}, sqlerr.New(sqlerr.InvalidParameterValue, "precision for type float must be less than 54 bits")
		}
	case KindTimestamp, KindTimestampTZ, KindTime:
		if len(mods) != 1 {
			return Type{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid type modifier")
		}
		p := mods[0]
		if p < 0 {
			name, zone := "TIMESTAMP", ""
			switch kind {
			case KindTimestampTZ:
				zone = " WITH TIME ZONE"
			case KindTime:
				name = "TIME"
			}
			return Type{}, sqlerr.New(sqlerr.InvalidParameterValue, "%s(%d)%s precision must not be negative", name, p, zone)
		}
		// PostgreSQL warns and reduces a larger precision to the maximum.
		t.prec = int8(min(p, MaxTimePrecision) + 1)
	case KindInterval:
		return Type{}, sqlerr.New(sqlerr.FeatureNotSupported, "interval type modifiers are not supported")
	default:
		return Type{}, sqlerr.New(sqlerr.SyntaxError, "type modifier is not allowed for type %q", name)
	}
	return t, nil
}
