package repr

import (
	"encoding/binary"
	"math"
	"strings"

	"freshet/sqlerr"
)

// Enum types. An enum's values are labels ordered by their declaration,
// as CREATE TYPE … AS ENUM and ALTER TYPE … ADD VALUE give them. A datum
// carries its label's sort position (a float64, as PostgreSQL's
// pg_enum.enumsortorder) and its label, so that it prints and compares
// without the catalog: ADD VALUE BEFORE or AFTER gives the new label a
// position between its neighbours' and never moves an existing one, so
// stored rows and arrangements stay in order. Only reading text needs
// the labels (EnumLabels), which the planner snapshots into the plan.
//
// The row encoding is tagEnum, the position as a float key (8 bytes,
// order-preserving), then the label escaped and terminated as a
// string's: positions are unique within a type, so the label never
// decides the order, and equal values have equal bytes.

// MaxEnumLabelLen is the longest label in bytes, NAMEDATALEN-1 as in
// PostgreSQL.
const MaxEnumLabelLen = 63

// EnumType returns the enum type with pg_type OID oid, whose name as
// format_type prints it (quoted, and qualified outside the public
// schema) is name. Its array type's OID is oid+1: whoever hands out enum
// OIDs must keep that one free (the catalog reserves the id after an
// enum's).
func EnumType(oid uint32, name string) Type {
	return Type{kind: KindEnum, enumOID: oid, enumName: name}
}

// enumArrayOID is the OID of the array type over the enum with OID oid.
func enumArrayOID(oid uint32) uint32 { return oid + 1 }

// IsEnum reports whether t is an enum type.
func (t Type) IsEnum() bool { return t.kind == KindEnum }

// EnumOID returns the OID of enum type t, or of the element of an
// array of an enum, and 0 for other types.
func (t Type) EnumOID() uint32 { return t.enumOID }

// EnumName returns the name of enum type t as format_type prints it,
// "" for other types.
func (t Type) EnumName() string { return t.enumName }

// NewEnum returns a value of an enum type: the label and its position.
func NewEnum(sort float64, label string) Datum {
	d := stringDatum(KindEnum, label)
	d.i = int64(math.Float64bits(sort))
	return d
}

// EnumSort returns the sort position of an enum datum.
func (d Datum) EnumSort() float64 { return math.Float64frombits(uint64(d.i)) }

// EnumLabel is one label of an enum type and its sort position.
type EnumLabel struct {
	Sort  float64
	Label string
}

// EnumLabels are the labels of one enum type, in sort order, as the
// catalog held them when a statement was planned. The zero value is an
// enum without labels. Invariant: sorted by Sort, Sort and Label unique.
type EnumLabels struct {
	// Type is the enum type the labels are of.
	Type   Type
	Labels []EnumLabel
}

// Parse reads s as a value of the enum: its label exactly, as
// PostgreSQL's enum_in (no trimming, case-sensitive).
func (l *EnumLabels) Parse(s string) (Datum, error) {
	for _, e := range l.Labels {
		if e.Label == s {
			return NewEnum(e.Sort, e.Label), nil
		}
	}
	return Null, sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input value for enum %s: \"%s\"", l.Type.String(), s)
}

// Cast converts d to the enum: a string is read as a label, a value of
// the same enum stays as it is, and any other type has no cast.
func (l *EnumLabels) Cast(d Datum) (Datum, error) {
	switch {
	case !d.valid:
		return Null, nil
	case d.kind.IsString():
		if d.kind == KindBpchar {
			return l.Parse(strings.TrimRight(d.str(), " "))
		}
		return l.Parse(d.str())
	case d.kind == KindEnum:
		return d, nil
	}
	return Null, sqlerr.New(sqlerr.CannotCoerce, "cannot cast type %s to %s", kinds[d.kind].display, l.Type.String())
}

// CastTo converts d to to, the enum or an array of it: a string is read
// as its text input (a label, or an array literal of labels), an array
// converts element by element.
func (l *EnumLabels) CastTo(d Datum, to Type) (Datum, error) {
	if to.kind != KindArray {
		return l.Cast(d)
	}
	switch {
	case !d.valid:
		return Null, nil
	case d.kind.IsString():
		return parseText(to, d.str(), UTC, l)
	case d.kind == KindArray:
		elems, err := d.Elems()
		if err != nil {
			return Null, err
		}
		for i, e := range elems {
			if elems[i], err = l.Cast(e); err != nil {
				return Null, err
			}
		}
		return NewArray(l.Type, elems), nil
	}
	return Null, sqlerr.New(sqlerr.CannotCoerce, "cannot cast type %s to %s", kinds[d.kind].display, to.String())
}

// First and Last return the enum's first and last values, NULL if it has
// no labels.
func (l *EnumLabels) First() Datum {
	if len(l.Labels) == 0 {
		return Null
	}
	return NewEnum(l.Labels[0].Sort, l.Labels[0].Label)
}

// Last: see First.
func (l *EnumLabels) Last() Datum {
	if len(l.Labels) == 0 {
		return Null
	}
	e := l.Labels[len(l.Labels)-1]
	return NewEnum(e.Sort, e.Label)
}

// Range returns the labels from lo to hi inclusive, in order, as an
// array of the enum (enum_range); a NULL bound is open. Bounds out of
// order give an empty array, as in PostgreSQL.
func (l *EnumLabels) Range(lo, hi Datum) Datum {
	elems := []Datum{}
	for _, e := range l.Labels {
		if (lo.valid && e.Sort < lo.EnumSort()) || (hi.valid && e.Sort > hi.EnumSort()) {
			continue
		}
		elems = append(elems, NewEnum(e.Sort, e.Label))
	}
	return NewArray(l.Type, elems)
}

// appendEnum appends the row encoding of an enum datum.
func appendEnum(buf []byte, d Datum) []byte {
	buf = binary.BigEndian.AppendUint64(append(buf, tagEnum), floatKey(d.EnumSort()))
	return appendEscaped(buf, d.str())
}

// decodeEnum reads the body of an enum's encoding (after the tag), whose
// length is n, as datumLen found it.
func decodeEnum(body []byte) (Datum, error) {
	if len(body) < 10 {
		return Null, errCorrupt("truncated enum")
	}
	k := binary.BigEndian.Uint64(body)
	if k>>63 != 0 {
		k &^= 1 << 63
	} else {
		k = ^k
	}
	return NewEnum(math.Float64frombits(k), decodeString(body[8:len(body)-2])), nil
}
