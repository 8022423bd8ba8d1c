package repr

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"

	"freshet/sqlerr"
)

// jsonb is JSON parsed and normalized, as PostgreSQL's jsonb is: white
// space is dropped, an object keeps the last value of a duplicated key
// and orders its keys shorter first, then bytewise, and a number is a
// numeric that prints as numeric_out prints it (1e2 is 100, 1.0 stays
// 1.0). A jsonb datum holds its row encoding (jsonb_key.go); a JSONB is
// the tree that functions work on.

// JSONBKind is the kind of a jsonb value. The kinds are declared in
// PostgreSQL's jsonb order of types: null < string < number < boolean <
// array < object.
type JSONBKind uint8

// The jsonb kinds.
const (
	JSONBNull JSONBKind = iota
	JSONBString
	JSONBNumber
	JSONBBool
	JSONBArray
	JSONBObject
)

var jsonbKindNames = [...]string{"null", "string", "number", "boolean", "array", "object"}

// String returns the kind's name as jsonb_typeof gives it.
func (k JSONBKind) String() string { return jsonbKindNames[k] }

// JSONB is a jsonb value as a tree. The zero JSONB is the JSON null.
type JSONB struct {
	Kind JSONBKind
	// Str is a string's value.
	Str string
	// Num is a number's value; its exponent carries the display scale,
	// as a numeric datum's does. It is never NaN or infinite.
	Num *apd.Decimal
	// Bool is a boolean's value.
	Bool bool
	// Elems are an array's elements, or an object's values, one for each
	// key.
	Elems []JSONB
	// Keys are an object's keys. Invariant: distinct, and sorted by
	// jsonbKeyLess.
	Keys []string
}

// IsContainer reports whether v is an array or an object.
func (v *JSONB) IsContainer() bool { return v.Kind == JSONBArray || v.Kind == JSONBObject }

// Get returns the value of key in object v.
func (v *JSONB) Get(key string) (JSONB, bool) {
	i, ok := slices.BinarySearchFunc(v.Keys, key, compareJSONBKeys)
	if !ok {
		return JSONB{}, false
	}
	return v.Elems[i], true
}

// compareJSONBKeys orders object keys as jsonb stores them: shorter
// first, then bytewise.
func compareJSONBKeys(a, b string) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// NewJSONBObject returns an object of the keys and values, which may be
// in any order and repeat a key: the last value of a key wins.
func NewJSONBObject(keys []string, vals []JSONB) JSONB {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return compareJSONBKeys(keys[a], keys[b]) })
	out := JSONB{Kind: JSONBObject, Keys: make([]string, 0, len(keys)), Elems: make([]JSONB, 0, len(keys))}
	for n, i := range idx {
		if n+1 < len(idx) && keys[idx[n+1]] == keys[i] {
			continue // a later value of the same key wins
		}
		out.Keys = append(out.Keys, keys[i])
		out.Elems = append(out.Elems, vals[i])
	}
	return out
}

// maxJSONBDepth bounds the nesting of jsonb input, where PostgreSQL's
// bound is its stack depth.
const maxJSONBDepth = 6000

var errJSONBDepth = sqlerr.New(sqlerr.StatementTooComplex, "stack depth limit exceeded")

// errJSONBNul is PostgreSQL's error for \u0000, which jsonb's text
// cannot hold.
var errJSONBNul = sqlerr.New(sqlerr.UntranslatableCharacter, "unsupported Unicode escape sequence").
	WithDetail("\\u0000 cannot be converted to text.")

// ParseJSONB reads jsonb text.
func ParseJSONB(s string) (JSONB, error) {
	bad := func() (JSONB, error) {
		return JSONB{}, sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type json").
			WithDetail("The input %q is not a JSON value.", truncateForMessage(s))
	}
	if !utf8.ValidString(s) {
		return bad()
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := parseJSONBValue(dec, nil, 0)
	if err == nil {
		if _, err = dec.Token(); err == io.EOF {
			return v, nil
		} else if err == nil {
			return bad()
		}
	}
	if err == errJSONBSyntax {
		return bad()
	}
	return JSONB{}, err
}

// errJSONBSyntax stands for any syntax error that the decoder reports.
var errJSONBSyntax = errors.New("json syntax")

// parseJSONBValue reads one value; tok is its first token if already
// read.
func parseJSONBValue(dec *json.Decoder, tok json.Token, depth int) (JSONB, error) {
	if depth > maxJSONBDepth {
		return JSONB{}, errJSONBDepth
	}
	if tok == nil {
		var err error
		if tok, err = dec.Token(); err != nil {
			return JSONB{}, errJSONBSyntax
		}
		tok = tokOrNull(tok)
	}
	switch t := tok.(type) {
	case jsonNullToken:
		return JSONB{}, nil
	case bool:
		return JSONB{Kind: JSONBBool, Bool: t}, nil
	case string:
		if strings.IndexByte(t, 0) >= 0 {
			return JSONB{}, errJSONBNul
		}
		return JSONB{Kind: JSONBString, Str: t}, nil
	case json.Number:
		d, err := parseDecimal(string(t))
		if err != nil {
			return JSONB{}, err
		}
		return JSONB{Kind: JSONBNumber, Num: d}, nil
	case json.Delim:
		switch t {
		case '[':
			out := JSONB{Kind: JSONBArray}
			for {
				tok, err := dec.Token()
				if err != nil {
					return JSONB{}, errJSONBSyntax
				}
				if tok == json.Delim(']') {
					return out, nil
				}
				e, err := parseJSONBValue(dec, tokOrNull(tok), depth+1)
				if err != nil {
					return JSONB{}, err
				}
				out.Elems = append(out.Elems, e)
			}
		case '{':
			var keys []string
			var vals []JSONB
			for {
				tok, err := dec.Token()
				if err != nil {
					return JSONB{}, errJSONBSyntax
				}
				if tok == json.Delim('}') {
					return NewJSONBObject(keys, vals), nil
				}
				k, _ := tok.(string)
				if strings.IndexByte(k, 0) >= 0 {
					return JSONB{}, errJSONBNul
				}
				vt, err := dec.Token()
				if err != nil {
					return JSONB{}, errJSONBSyntax
				}
				v, err := parseJSONBValue(dec, tokOrNull(vt), depth+1)
				if err != nil {
					return JSONB{}, err
				}
				keys, vals = append(keys, k), append(vals, v)
			}
		}
	}
	return JSONB{}, errJSONBSyntax
}

// jsonNullToken marks a JSON null token already read, which the decoder
// gives as a nil Token.
type jsonNullToken struct{}

func tokOrNull(t json.Token) json.Token {
	if t == nil {
		return jsonNullToken{}
	}
	return t
}

// AppendJSONBText appends v's text form, as PostgreSQL prints jsonb:
// {"a": 1, "b": [1, 2]}.
func AppendJSONBText(buf []byte, v *JSONB) []byte { return appendJSONB(buf, v, -1) }

// AppendJSONBPretty appends v as jsonb_pretty writes it: one element
// or pair a line, indented by four spaces a level.
func AppendJSONBPretty(buf []byte, v *JSONB) []byte { return appendJSONB(buf, v, 0) }

// appendJSONB appends v, on one line if level < 0, else indented as at
// that nesting level.
func appendJSONB(buf []byte, v *JSONB, level int) []byte {
	newline := func(buf []byte, level int) []byte {
		buf = append(buf, '\n')
		for range level {
			buf = append(buf, "    "...)
		}
		return buf
	}
	switch v.Kind {
	case JSONBNull:
		return append(buf, "null"...)
	case JSONBBool:
		if v.Bool {
			return append(buf, "true"...)
		}
		return append(buf, "false"...)
	case JSONBNumber:
		return appendNumeric(buf, v.Num)
	case JSONBString:
		return appendJSONString(buf, v.Str)
	}
	open, close := byte('['), byte(']')
	if v.Kind == JSONBObject {
		open, close = '{', '}'
	}
	buf = append(buf, open)
	for i := range v.Elems {
		if i > 0 {
			buf = append(buf, ',')
			if level < 0 {
				buf = append(buf, ' ')
			}
		}
		if level >= 0 {
			buf = newline(buf, level+1)
		}
		if v.Kind == JSONBObject {
			buf = append(appendJSONString(buf, v.Keys[i]), ": "...)
		}
		next := level
		if level >= 0 {
			next++
		}
		buf = appendJSONB(buf, &v.Elems[i], next)
	}
	if level >= 0 {
		// Even an empty container closes on a line of its own.
		buf = newline(buf, level)
	}
	return append(buf, close)
}

// JSONBEqual reports whether a and b are equal jsonb values: numbers by
// value (1.0 equals 1), strings bytewise.
func JSONBEqual(a, b *JSONB) bool {
	return bytes.Equal(appendJSONBKey(nil, a, false, nil), appendJSONBKey(nil, b, false, nil))
}

// castFromJSONB converts jsonb to json, or a jsonb scalar to bool, a
// number type, as PostgreSQL 15's jsonb casts do: the value must be of
// the matching JSON kind (22023 otherwise, a JSON null included).
func castFromJSONB(d Datum, to Type, assign bool, z *Zone) (Datum, error) {
	if to.kind == KindJSON {
		return NewJSON(FormatText(d)), nil
	}
	v, err := d.JSONB()
	if err != nil {
		return Null, err
	}
	want := JSONBNumber
	switch {
	case to.kind == KindBool:
		want = JSONBBool
	case to.kind.IsInt() || to.kind.IsFloat() || to.kind == KindNumeric:
	default:
		return Null, errCannotCast(KindJSONB, to)
	}
	if v.Kind != want {
		return Null, sqlerr.New(sqlerr.InvalidParameterValue, "cannot cast jsonb %s to type %s", v.Kind, to.String())
	}
	if want == JSONBBool {
		return NewBool(v.Bool), nil
	}
	return cast(NewNumeric(v.Num), to, assign, z)
}
