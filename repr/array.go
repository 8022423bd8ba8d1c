package repr

import (
	"strings"

	"freshet/sqlerr"
)

// Arrays are one-dimensional, with lower bound 1, as PostgreSQL's arrays
// built by ARRAY[...], array_agg and every catalog array column are.
// Their elements are of one type (the Type's element kind and modifiers)
// and may be NULL.
//
// An array datum holds its elements in their row encoding (encode.go),
// each preceded by 0x01, the whole followed by 0x00: the body of its own
// row encoding, whose tag is tagArray. Because element encodings are
// self-delimiting and order-preserving, and an element sorts after the
// end of an array, comparing two bodies bytewise orders arrays as
// PostgreSQL does: element by element, NULL elements last, and a prefix
// before any longer array.

// tagArray is the tag of an array's row encoding.
const tagArray = 0xA0

// Array body markers.
const (
	arrayEnd  = 0x00
	arrayNext = 0x01
)

// int2vector and oidvector: PostgreSQL's vectors of int2 and oid
// (pg_index.indkey, pg_index.indclass), arrays whose subscripts start at
// 0 and whose text form is the elements separated by spaces ("1 3").
// Their datums are arrays with vectorFlag set in the element kind field,
// so that they print as vectors.
const (
	int2VectorOID      = 22
	int2VectorArrayOID = 1006
	oidVectorOID       = 30
	oidVectorArrayOID  = 1013
	vectorFlag         = 1 << 8
)

// The vector types.
var (
	Int2Vector = Type{kind: KindArray, elem: KindInt2, vector: true}
	OIDVector  = Type{kind: KindArray, elem: KindOID, vector: true}
)

// vectorFacts returns a vector type's OID, array OID and name.
func (t Type) vectorFacts() (oid, array uint32, name string) {
	if t.elem == KindOID {
		return oidVectorOID, oidVectorArrayOID, "oidvector"
	}
	return int2VectorOID, int2VectorArrayOID, "int2vector"
}

// IsVector reports whether t is int2vector or oidvector, whose
// subscripts start at 0.
func (t Type) IsVector() bool { return t.vector }

// MaxArrayLength bounds the number of elements of an array built or read
// from text, as PostgreSQL's MaxArraySize does.
const MaxArrayLength = 1<<27 - 1

// ArrayOf returns the array type whose elements are of type elem. An
// array of arrays is the array itself, as in PostgreSQL (int[][] is
// int[]).
func ArrayOf(elem Type) Type {
	if elem.kind == KindArray {
		return elem
	}
	t := elem
	t.elem, t.kind, t.vector = elem.kind, KindArray, false
	return t
}

// IsArray reports whether t is an array type.
func (t Type) IsArray() bool { return t.kind == KindArray }

// Elem returns the element type of an array type, and t itself for any
// other type.
func (t Type) Elem() Type {
	if t.kind != KindArray {
		return t
	}
	e := t
	e.kind, e.elem, e.vector = t.elem, KindUnknown, false
	return e
}

// NewArray returns the array of elems, each NULL or a datum of elem's
// kind (the caller casts them first).
func NewArray(elem Type, elems []Datum) Datum {
	var b []byte
	for _, e := range elems {
		b = append(b, arrayNext)
		b = AppendDatum(b, e)
	}
	b = append(b, arrayEnd)
	d := stringDatum(KindArray, string(b))
	d.i, d.n = int64(elem.kind), uint32(len(elems))
	return d
}

// NewVector returns the vector of type t (Int2Vector or OIDVector) of
// elems, datums of its element type.
func NewVector(t Type, elems []Datum) Datum {
	d := NewArray(t.Elem(), elems)
	d.i |= vectorFlag
	return d
}

// NewInt2Vector returns the int2vector of elems (int2 datums).
func NewInt2Vector(elems []Datum) Datum { return NewVector(Int2Vector, elems) }

// elemKind is the element kind of an array datum.
func (d Datum) elemKind() Kind { return Kind(d.i &^ vectorFlag) }

// IsVector reports whether an array datum is an int2vector.
func (d Datum) IsVector() bool { return d.i&vectorFlag != 0 }

// ArrayLen returns the number of elements of an array datum.
func (d Datum) ArrayLen() int { return int(d.n) }

// ArrayElems decodes the elements of an array datum as elem (the array
// type's Elem, whose modifiers restore char(n) padding and numeric
// display scales).
func (d Datum) ArrayElems(elem Type) ([]Datum, error) {
	out := make([]Datum, 0, d.n)
	b := []byte(d.str())
	for len(b) > 0 && b[0] == arrayNext {
		e, n, err := decodeDatum(b[1:], elem)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		b = b[1+n:]
	}
	if len(b) != 1 || b[0] != arrayEnd {
		return nil, errCorrupt("array body does not end where its elements do")
	}
	return out, nil
}

// arrayBodyLen returns the length of the array body at the start of b
// (after the tag), and its number of elements.
func arrayBodyLen(b []byte) (n, count int, err error) {
	i := 0
	for i < len(b) && b[i] == arrayNext {
		m, err := datumLen(b[i+1:])
		if err != nil {
			return 0, 0, err
		}
		i += 1 + m
		count++
	}
	if i >= len(b) || b[i] != arrayEnd {
		return 0, 0, errCorrupt("unterminated array")
	}
	return i + 1, count, nil
}

// appendArrayText appends an array's text form: {1,2,NULL,"a b"}.
// Elements are quoted when they are empty, are NULL spelled as text,
// or hold a brace, comma, quote, backslash or white space; quotes and
// backslashes inside are escaped with a backslash.
func appendArrayText(buf []byte, d Datum, z *Zone) []byte {
	elems, err := d.ArrayElems(Type{kind: d.elemKind()})
	if err != nil {
		// A datum built by this package always decodes.
		panic(err)
	}
	if d.IsVector() {
		for i, e := range elems {
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = AppendTextIn(buf, e, z)
		}
		return buf
	}
	buf = append(buf, '{')
	for i, e := range elems {
		if i > 0 {
			buf = append(buf, ',')
		}
		if e.IsNull() {
			buf = append(buf, "NULL"...)
			continue
		}
		start := len(buf)
		buf = AppendTextIn(buf, e, z)
		text := string(buf[start:])
		if arrayElemNeedsQuotes(text) {
			buf = buf[:start]
			buf = append(buf, '"')
			for j := 0; j < len(text); j++ {
				if text[j] == '"' || text[j] == '\\' {
					buf = append(buf, '\\')
				}
				buf = append(buf, text[j])
			}
			buf = append(buf, '"')
		}
	}
	return append(buf, '}')
}

func arrayElemNeedsQuotes(s string) bool {
	if s == "" || strings.EqualFold(s, "NULL") {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '{', '}', ',', '"', '\\':
			return true
		default:
			if isSpace(c) {
				return true
			}
		}
	}
	return false
}

// errMalformedArray is PostgreSQL's error for text that is no array
// literal.
func errMalformedArray(s, detail string) error {
	return sqlerr.New(sqlerr.InvalidTextRepresentation, "malformed array literal: %q", s).WithDetail("%s", detail)
}

// parseArray reads an array literal of type t ({1,2,3}, {"a b",NULL}):
// its elements are read with the element type's input function, an
// enum's with its labels l. Arrays
// of more than one dimension, and explicit bounds ([0:2]={...}), are
// refused with 0A000.
func parseArray(t Type, s string, z *Zone, l *EnumLabels) (Datum, error) {
	if err := checkEncoding(s); err != nil {
		return Null, err
	}
	if t.vector {
		var elems []Datum
		for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < 128 && isSpace(byte(r)) }) {
			e, err := parseText(t.Elem(), f, z, l)
			if err != nil {
				return Null, err
			}
			elems = append(elems, e)
		}
		return NewVector(t.Base(), elems), nil
	}
	elem := t.Elem()
	p := strings.TrimLeft(s, " \t\n\r\v\f")
	if strings.HasPrefix(p, "[") {
		return Null, sqlerr.New(sqlerr.FeatureNotSupported, "array bounds are not supported: %q", s)
	}
	if !strings.HasPrefix(p, "{") {
		return Null, errMalformedArray(s, `Array value must start with "{" or dimension information.`)
	}
	p = p[1:]
	var elems []Datum
	var tok strings.Builder
	expectElem := true // after '{' or ','
	for {
		p = strings.TrimLeft(p, " \t\n\r\v\f")
		if p == "" {
			return Null, errMalformedArray(s, "Unexpected end of input.")
		}
		if p[0] == '}' {
			if expectElem && len(elems) > 0 {
				// A trailing comma: {1,}.
				return Null, errMalformedArray(s, `Unexpected "}" character.`)
			}
			p = p[1:]
			break
		}
		if !expectElem {
			if p[0] != ',' {
				return Null, errMalformedArray(s, "Unexpected array element.")
			}
			p = p[1:]
			expectElem = true
			continue
		}
		switch p[0] {
		case '{':
			return Null, sqlerr.New(sqlerr.FeatureNotSupported, "arrays of more than one dimension are not supported: %q", s)
		case ',':
			return Null, errMalformedArray(s, `Unexpected "," character.`)
		}
		tok.Reset()
		quoted := false
		if p[0] == '"' {
			quoted = true
			p = p[1:]
			closed := false
			for len(p) > 0 {
				c := p[0]
				p = p[1:]
				if c == '\\' && len(p) > 0 {
					tok.WriteByte(p[0])
					p = p[1:]
					continue
				}
				if c == '"' {
					closed = true
					break
				}
				tok.WriteByte(c)
			}
			if !closed {
				return Null, errMalformedArray(s, "Unexpected end of input.")
			}
		} else {
			for len(p) > 0 && p[0] != ',' && p[0] != '}' {
				c := p[0]
				if c == '{' || c == '"' {
					return Null, errMalformedArray(s, "Unexpected array element.")
				}
				if c == '\\' && len(p) > 1 {
					tok.WriteByte(p[1])
					p = p[2:]
					continue
				}
				tok.WriteByte(c)
				p = p[1:]
			}
		}
		text := tok.String()
		if !quoted {
			text = strings.TrimRight(text, " \t\n\r\v\f")
		}
		var e Datum
		if !quoted && strings.EqualFold(text, "NULL") {
			e = Null
		} else {
			v, err := parseText(elem, text, z, l)
			if err != nil {
				return Null, err
			}
			e = v
		}
		elems = append(elems, e)
		if len(elems) > MaxArrayLength {
			return Null, sqlerr.New(sqlerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", MaxArrayLength)
		}
		expectElem = false
	}
	if strings.TrimLeft(p, " \t\n\r\v\f") != "" {
		return Null, errMalformedArray(s, "Junk after closing right brace.")
	}
	return NewArray(elem, elems), nil
}

// castArray converts every element of array d to to's element type, with
// the rules of the cast between the element types.
func castArray(d Datum, to Type, assign bool, z *Zone) (Datum, error) {
	elems, err := d.ArrayElems(Type{kind: d.elemKind()})
	if err != nil {
		return Null, err
	}
	elem := to.Elem()
	for i, e := range elems {
		if elems[i], err = cast(e, elem, assign, z); err != nil {
			return Null, err
		}
	}
	if to.vector {
		return NewVector(to.Base(), elems), nil
	}
	return NewArray(elem, elems), nil
}

// Elems decodes the elements of an array datum with their kind's
// unmodified type; ArrayElems restores modifiers.
func (d Datum) Elems() ([]Datum, error) { return d.ArrayElems(Type{kind: d.elemKind()}) }

// TypeCastContext is CastContextOf for types: an array casts to an array
// where its element type casts to the other's, to a string type in
// assignment and from one explicitly (PostgreSQL's I/O casts), and to
// nothing else.
func TypeCastContext(from, to Type) CastContext {
	switch {
	case from.kind == KindArray && to.kind == KindArray:
		if to.vector && !from.vector {
			// PostgreSQL reads a vector only from text or another
			// vector.
			return CastExplicit
		}
		// Element by element, enums included (text[] to mood[]).
		return TypeCastContext(from.Elem(), to.Elem())
	case from.enumOID != to.enumOID && from.kind != KindUnknown && !from.kind.IsString() && !to.kind.IsString():
		// Two enums, or an enum and any type but a string: no cast.
		return CastNone
	case from.kind == KindArray:
		if to.kind.IsString() {
			return CastAssignment
		}
		return CastNone
	case to.kind == KindArray:
		switch {
		case from.kind == KindUnknown:
			return CastImplicit
		case from.kind.IsString():
			return CastExplicit
		}
		return CastNone
	}
	return CastContextOf(from.kind, to.kind)
}
