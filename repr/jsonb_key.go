package repr

import (
	"encoding/binary"

	"github.com/cockroachdb/apd/v3"
)

// The row encoding of jsonb is a key, whose bytes order values as
// PostgreSQL's jsonb btree operators do, then a trailer that restores
// the display scales of its numbers.
//
// The key writes the values in PostgreSQL's comparison order
// (compareJsonbContainers): a container's kind and size before its
// contents, then the contents in storage order. Each value starts with
// a byte that orders the kinds as jsonb does:
//
//	null     0x10
//	string   0x20, then the bytes escaped and terminated as a text
//	         datum's (appendEscaped), so that a prefix sorts first
//	number   0x30, then the numeric key (appendNumericKey), canonical:
//	         1.0 and 1 have one key
//	boolean  0x40 false, 0x41 true
//	array    0x50, the element count (appendInt), 0x01, the elements
//	object   0x60, the pair count (appendInt), then each key (escaped
//	         and terminated) and its value, keys in storage order
//
// A scalar at the top is what PostgreSQL calls a raw scalar, an array
// of one element marked raw: 0x50, count 1, 0x00, the scalar. So, as in
// PostgreSQL, a top-level scalar sorts after the empty array and before
// any other array ('1' > '[]', '1' < '[0]'), and compares with another
// scalar by type and value. Every value's key is self-delimiting, so no
// key is a prefix of another and bytes.Compare of two keys is jsonb's
// order.
//
// Equal jsonb values (PostgreSQL's =) have equal keys. The trailer
// keeps what = ignores: the trailing fractional zeros of numbers, which
// PostgreSQL prints ('1.0'::jsonb prints 1.0). It is a list of (number's
// index in key order + 1, zeros) as uvarints for each number with any,
// then 0x00. So the whole encoding orders as the key, then the
// trailer: values that are equal but for such zeros ('1' and '1.0')
// have different row bytes, as intervals of equal span with different
// fields do. The SQL comparison operators compare keys only
// (CompareJSONBKeys); GROUP BY, DISTINCT and joins compare rows and
// tell them apart.
const (
	tagJSONB = 0xA8

	jkNull   = 0x10
	jkString = 0x20
	jkNumber = 0x30
	jkFalse  = 0x40
	jkTrue   = 0x41
	jkArray  = 0x50
	jkObject = 0x60

	jkRaw    = 0x00
	jkNotRaw = 0x01
)

// NewJSONB returns a jsonb datum of v.
func NewJSONB(v *JSONB) Datum {
	var zeros []uint64
	buf := appendJSONBKey(nil, v, true, &zeros)
	key := len(buf)
	for i, z := range zeros {
		if z > 0 {
			buf = binary.AppendUvarint(buf, uint64(i+1))
			buf = binary.AppendUvarint(buf, z)
		}
	}
	buf = append(buf, 0)
	d := stringDatum(KindJSONB, string(buf))
	d.i = int64(key)
	return d
}

// JSONB returns the value of a jsonb datum.
func (d Datum) JSONB() (JSONB, error) {
	v, _, n, err := decodeJSONBBody([]byte(d.str()))
	if err == nil && n != len(d.str()) {
		err = errCorrupt("jsonb with %d bytes to spare", len(d.str())-n)
	}
	return v, err
}

// CompareJSONBKeys compares two jsonb datums as PostgreSQL's jsonb
// operators do, which ignore a number's trailing zeros.
func CompareJSONBKeys(a, b Datum) int {
	x, y := a.str()[:a.i], b.str()[:b.i]
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// appendJSONBKey appends v's key. zeros, if not nil, collects the
// trailing zeros of each number in key order.
func appendJSONBKey(buf []byte, v *JSONB, top bool, zeros *[]uint64) []byte {
	if top && !v.IsContainer() {
		buf = appendInt(append(buf, jkArray), 1)
		return appendJSONBKey(append(buf, jkRaw), v, false, zeros)
	}
	switch v.Kind {
	case JSONBNull:
		return append(buf, jkNull)
	case JSONBString:
		return appendEscaped(append(buf, jkString), v.Str)
	case JSONBNumber:
		if zeros != nil {
			*zeros = append(*zeros, uint64(trailingZeros(v.Num)))
		}
		return appendNumericKey(append(buf, jkNumber), v.Num)
	case JSONBBool:
		if v.Bool {
			return append(buf, jkTrue)
		}
		return append(buf, jkFalse)
	case JSONBArray:
		buf = append(appendInt(append(buf, jkArray), int64(len(v.Elems))), jkNotRaw)
		for i := range v.Elems {
			buf = appendJSONBKey(buf, &v.Elems[i], false, zeros)
		}
		return buf
	}
	buf = appendInt(append(buf, jkObject), int64(len(v.Elems)))
	for i := range v.Elems {
		buf = appendEscaped(buf, v.Keys[i])
		buf = appendJSONBKey(buf, &v.Elems[i], false, zeros)
	}
	return buf
}

// trailingZeros returns the number of trailing zeros after d's decimal
// point: 2 for 1.500, 1 for 0.0.
func trailingZeros(d *apd.Decimal) int32 {
	if d.Exponent >= 0 {
		return 0
	}
	if d.IsZero() {
		return -d.Exponent
	}
	var tmp [48]byte
	digits := d.Coeff.Append(tmp[:0], 10)
	n := int32(0)
	for n < -d.Exponent && digits[len(digits)-1-int(n)] == '0' {
		n++
	}
	return n
}

// jsonbDecoder reads a jsonb key.
type jsonbDecoder struct {
	b    []byte
	i    int
	nums []*JSONB
}

// decodeJSONBBody decodes a jsonb encoding without its tag and returns
// the value, the length of its key and the encoding's length.
func decodeJSONBBody(b []byte) (v JSONB, keyLen, n int, err error) {
	dec := jsonbDecoder{b: b}
	v, err = dec.value(true, 0)
	if err != nil {
		return JSONB{}, 0, 0, err
	}
	keyLen = dec.i
	if v.Kind == JSONBNumber {
		dec.nums = append(dec.nums, &v)
	}
	// The trailer: the numbers' trailing zeros.
	for {
		idx, n := binary.Uvarint(b[dec.i:])
		if n <= 0 {
			return JSONB{}, 0, 0, errCorrupt("bad jsonb trailer")
		}
		dec.i += n
		if idx == 0 {
			break
		}
		z, n := binary.Uvarint(b[dec.i:])
		if n <= 0 || idx > uint64(len(dec.nums)) || z == 0 || z > maxNumericDscale {
			return JSONB{}, 0, 0, errCorrupt("bad jsonb trailer")
		}
		dec.i += n
		num := dec.nums[idx-1]
		d := new(apd.Decimal)
		d.Coeff.Mul(&num.Num.Coeff, pow10(int64(z)))
		d.Exponent = num.Num.Exponent - int32(z)
		d.Negative = num.Num.Negative
		num.Num = d
	}
	return v, keyLen, dec.i, nil
}

func (dec *jsonbDecoder) byte() (byte, error) {
	if dec.i >= len(dec.b) {
		return 0, errCorrupt("truncated jsonb")
	}
	dec.i++
	return dec.b[dec.i-1], nil
}

// count reads an element or pair count.
func (dec *jsonbDecoder) count() (int, error) {
	n, err := datumLen(dec.b[dec.i:])
	if err != nil {
		return 0, err
	}
	tag := dec.b[dec.i]
	if tag < tagIntZero || tag > tagIntMax {
		return 0, errCorrupt("bad jsonb count")
	}
	var u uint64
	for _, c := range dec.b[dec.i+1 : dec.i+n] {
		u = u<<8 | uint64(c)
	}
	dec.i += n
	if u > uint64(len(dec.b)) {
		return 0, errCorrupt("jsonb count %d beyond its bytes", u)
	}
	return int(u), nil
}

// str reads an escaped, terminated string (appendEscaped).
func (dec *jsonbDecoder) str() (string, error) {
	b := dec.b[dec.i:]
	for i := 0; i+1 < len(b); i++ {
		if b[i] != 0 {
			continue
		}
		if b[i+1] == 1 {
			dec.i += i + 2
			return decodeString(b[:i]), nil
		}
		i++
	}
	return "", errCorrupt("unterminated jsonb string")
}

func (dec *jsonbDecoder) value(top bool, depth int) (JSONB, error) {
	if depth > maxJSONBDepth+1 {
		return JSONB{}, errCorrupt("jsonb nested too deep")
	}
	tag, err := dec.byte()
	if err != nil {
		return JSONB{}, err
	}
	switch tag {
	case jkNull:
		return JSONB{}, nil
	case jkFalse, jkTrue:
		return JSONB{Kind: JSONBBool, Bool: tag == jkTrue}, nil
	case jkString:
		s, err := dec.str()
		return JSONB{Kind: JSONBString, Str: s}, err
	case jkNumber:
		if dec.i >= len(dec.b) || dec.b[dec.i] < tagNumNegInf || dec.b[dec.i] > tagNumNaN {
			return JSONB{}, errCorrupt("jsonb number without a numeric key")
		}
		n, err := datumLen(dec.b[dec.i:])
		if err != nil {
			return JSONB{}, err
		}
		d, err := decodeNumeric(dec.b[dec.i], dec.b[dec.i+1:dec.i+n])
		if err != nil {
			return JSONB{}, err
		}
		if d.Form != apd.Finite {
			return JSONB{}, errCorrupt("jsonb number %s", d)
		}
		dec.i += n
		return JSONB{Kind: JSONBNumber, Num: d}, nil
	case jkArray:
		n, err := dec.count()
		if err != nil {
			return JSONB{}, err
		}
		raw, err := dec.byte()
		if err != nil {
			return JSONB{}, err
		}
		if raw == jkRaw {
			if !top || n != 1 {
				return JSONB{}, errCorrupt("misplaced raw jsonb scalar")
			}
			v, err := dec.value(false, depth+1)
			if err == nil && v.IsContainer() {
				err = errCorrupt("raw jsonb scalar holds a container")
			}
			return v, err
		}
		if raw != jkNotRaw {
			return JSONB{}, errCorrupt("bad jsonb array flag")
		}
		out := JSONB{Kind: JSONBArray, Elems: make([]JSONB, 0, n)}
		for range n {
			e, err := dec.value(false, depth+1)
			if err != nil {
				return JSONB{}, err
			}
			out.Elems = append(out.Elems, e)
			if e.Kind == JSONBNumber {
				dec.nums = append(dec.nums, &out.Elems[len(out.Elems)-1])
			}
		}
		return out, nil
	case jkObject:
		n, err := dec.count()
		if err != nil {
			return JSONB{}, err
		}
		out := JSONB{Kind: JSONBObject, Keys: make([]string, 0, n), Elems: make([]JSONB, 0, n)}
		for i := range n {
			k, err := dec.str()
			if err != nil {
				return JSONB{}, err
			}
			if i > 0 && compareJSONBKeys(out.Keys[i-1], k) >= 0 {
				return JSONB{}, errCorrupt("jsonb keys out of order")
			}
			v, err := dec.value(false, depth+1)
			if err != nil {
				return JSONB{}, err
			}
			out.Keys = append(out.Keys, k)
			out.Elems = append(out.Elems, v)
			if v.Kind == JSONBNumber {
				dec.nums = append(dec.nums, &out.Elems[len(out.Elems)-1])
			}
		}
		return out, nil
	}
	return JSONB{}, errCorrupt("bad jsonb tag 0x%02x", tag)
}
