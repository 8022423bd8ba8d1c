package repr

import (
	"math"
	"strconv"
	"strings"

	"freshet/sqlerr"
)

// Object identifiers: oid and the reg* types (regclass, regtype,
// regproc, regnamespace, regrole), PostgreSQL's unsigned 32-bit
// integers that name catalog objects. Their datums hold the value in
// i, 0 to 2^32-1, and encode and compare as integers. A reg* type
// differs from oid only in its text form, the name of the object: repr
// reads and prints the number, and the planner, which knows the
// catalog, turns names into numbers in literals and numbers into names
// where a value is printed (planner/bind_oid.go).

// IsOIDKind reports whether k is oid or a reg* kind.
func (k Kind) IsOIDKind() bool { return k >= KindOID && k <= KindRegrole }

// NewOID returns a datum of OID kind k (KindOID or a reg* kind).
func NewOID(k Kind, v uint32) Datum { return Datum{head: head{kind: k, valid: true}, i: int64(v)} }

// parseOID reads an object identifier as oidin does: an integer in
// [-2^31, 2^32-1], surrounded by white space, a negative value read as
// its 32-bit two's complement. A reg* type reads a number the same way;
// a name is the planner's to resolve.
func parseOID(t Type, s string) (Datum, error) {
	v := trimSpace(s)
	if t.kind != KindOID && v == "-" {
		return NewOID(t.kind, 0), nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		if _, ok := err.(*strconv.NumError); ok && err.(*strconv.NumError).Err == strconv.ErrRange {
			return Null, errOIDRange(t, s)
		}
		if t.kind != KindOID && v != "" && !strings.ContainsAny(v[:1], "+-0123456789") {
			return Null, sqlerr.New(sqlerr.FeatureNotSupported, "a %s is read from a name only in a SQL literal: %q", t, s)
		}
		return Null, sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type %s: %q", t, s)
	}
	if n < math.MinInt32 || n > math.MaxUint32 {
		return Null, errOIDRange(t, s)
	}
	return NewOID(t.kind, uint32(n)), nil
}

func errOIDRange(t Type, s string) error {
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "value %q is out of range for type %s", s, t)
}

// castToOID converts an integer or another object identifier to OID
// kind to: int4 and int2 by their 32-bit two's complement, as
// PostgreSQL's binary-coercible cast does, int8 only within 0 to 2^32-1.
func castToOID(d Datum, to Kind) (Datum, error) {
	switch {
	case d.kind.IsOIDKind():
		return NewOID(to, uint32(d.i)), nil
	case d.kind == KindInt2 || d.kind == KindInt4:
		return NewOID(to, uint32(int32(d.i))), nil
	case d.kind == KindInt8:
		if d.i < 0 || d.i > math.MaxUint32 {
			return Null, sqlerr.New(sqlerr.NumericValueOutOfRange, "OID out of range")
		}
		return NewOID(to, uint32(d.i)), nil
	}
	return Null, errCannotCast(d.kind, Type{kind: to})
}

// oidToInt converts an object identifier to int8 (its value) or int4
// (its 32-bit two's complement, as PostgreSQL's binary-coercible cast).
func oidToInt(d Datum, to Kind) (Datum, error) {
	switch to {
	case KindInt8:
		return NewInt8(d.i), nil
	case KindInt4:
		return NewInt4(int32(uint32(d.i))), nil
	}
	return Null, errCannotCast(d.kind, Type{kind: to})
}

func init() {
	oids := []Kind{KindOID, KindRegclass, KindRegtype, KindRegproc, KindRegnamespace, KindRegrole}
	for _, k := range oids {
		castContexts[[2]Kind{KindInt2, k}] = CastImplicit
		castContexts[[2]Kind{KindInt4, k}] = CastImplicit
		castContexts[[2]Kind{KindInt8, k}] = CastImplicit
		castContexts[[2]Kind{k, KindInt8}] = CastAssignment
		castContexts[[2]Kind{k, KindInt4}] = CastAssignment
		if k != KindOID {
			castContexts[[2]Kind{KindOID, k}] = CastImplicit
			castContexts[[2]Kind{k, KindOID}] = CastImplicit
		}
	}
	// PostgreSQL reads a regclass from text at run time; Freshet only
	// from a literal, so the cast is never applied implicitly.
	castContexts[[2]Kind{KindText, KindRegclass}] = CastExplicit
	castContexts[[2]Kind{KindVarchar, KindRegclass}] = CastExplicit
}
