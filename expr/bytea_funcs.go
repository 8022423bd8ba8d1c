package expr

import (
	"crypto/sha256"
	"encoding/binary"
	"strings"

	"freshet/repr"
	"freshet/sqlerr"
)

// The bytea and uuid functions, PostgreSQL's (length, octet_length, md5
// and || take bytea through the text functions, which count and hash a
// datum's bytes):
//
//	ByteaSubstr(b, from[, count])  substring of bytea: bytes from the
//	                               1-based position from, int4 positions
//	Encode(b, format)              encode: b as hex, escape or base64 text
//	Decode(s, format)              decode: the bytes that text encodes
//	ConvertTo(s, encoding)         convert_to: s's bytes in encoding
//	ConvertFrom(b, encoding)       convert_from: the text whose bytes b
//	                               are in encoding
//	GenRandomUUID(key)             gen_random_uuid (below)
//
// Only the UTF8 encoding, the database's, converts; another encoding
// that PostgreSQL knows is 0A000, a name it does not know 22023.
//
// gen_random_uuid has a value of its own in every row, which a dataflow
// must compute the same way each time it meets the row (a retraction
// must retract what the insertion added). So the planner binds it
// without arguments, and the coordinator gives each call of a statement
// a fresh random key (a bytea literal) before the statement runs; a row's
// uuid is then a version-4 uuid made of SHA-256 over the key and the
// row. A row that stands for several equal rows is evaluated once per
// copy, with the copy's ordinal hashed as well (CountCopies), so that
// each copy gets a uuid of its own, as in PostgreSQL. A view, which has
// no statement to give it a key, refuses the function.

func (f VariadicFunc) isBytea() bool { return f >= ByteaSubstr && f <= GenRandomUUID }

func (c CallVariadic) byteaTyp(input []ColumnType) ColumnType {
	nullable := false
	for _, a := range c.Args {
		nullable = nullable || a.Typ(input).Nullable
	}
	switch c.Func {
	case Encode, ConvertFrom:
		return ColumnType{Type: repr.Text, Nullable: nullable}
	case GenRandomUUID:
		return ColumnType{Type: repr.UUID}
	}
	return ColumnType{Type: repr.Bytea, Nullable: nullable}
}

func (c CallVariadic) evalBytea(row []repr.Datum) (repr.Datum, error) {
	if c.Func == GenRandomUUID {
		return genRandomUUID(c.Args, row)
	}
	args := make([]repr.Datum, len(c.Args))
	for i, a := range c.Args {
		v, err := a.Eval(row)
		if err != nil || v.IsNull() {
			return repr.Null, err
		}
		args[i] = v
	}
	switch c.Func {
	case ByteaSubstr:
		return byteaSubstr(args)
	case Encode:
		s, err := repr.EncodeBytea(args[0].Bytes(), args[1].Text())
		if err != nil {
			return repr.Null, err
		}
		return repr.NewText(s), nil
	case Decode:
		b, err := repr.DecodeBytea(args[0].Text(), args[1].Text())
		if err != nil {
			return repr.Null, err
		}
		return repr.NewBytea(b), nil
	case ConvertTo, ConvertFrom:
		if err := checkConversion(args[1].Text(), c.Func == ConvertTo); err != nil {
			return repr.Null, err
		}
		if c.Func == ConvertTo {
			return repr.NewBytea(args[0].Text()), nil
		}
		if err := repr.CheckEncoding(args[0].Bytes()); err != nil {
			return repr.Null, err
		}
		return repr.NewText(args[0].Bytes()), nil
	}
	return repr.Null, sqlerr.AssertionFailedf("unknown bytea function %d", c.Func)
}

// byteaSubstr is substring(b from s for n), as PostgreSQL's
// bytea_substring: positions before the first byte count toward n.
func byteaSubstr(args []repr.Datum) (repr.Datum, error) {
	b := args[0].Bytes()
	from := args[1].Int()
	end := int64(len(b)) + 1
	if len(args) > 2 {
		count := args[2].Int()
		if count < 0 {
			return repr.Null, sqlerr.New(sqlerr.SubstringError, "negative substring length not allowed")
		}
		end = from + count
	}
	lo, hi := max(from, 1), min(end, int64(len(b))+1)
	if hi <= lo {
		return repr.NewBytea(""), nil
	}
	return repr.NewBytea(b[lo-1 : hi-1]), nil
}

// checkConversion checks the encoding named in convert_to and
// convert_from, whose names PostgreSQL matches ignoring case and
// punctuation ("utf-8" is UTF8).
func checkConversion(name string, to bool) error {
	var norm strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			norm.WriteRune(r)
		}
	}
	n := norm.String()
	if n == "utf8" || n == "unicode" {
		return nil
	}
	for _, e := range encodings {
		if strings.EqualFold(strings.ReplaceAll(e, "_", ""), n) {
			return sqlerr.New(sqlerr.FeatureNotSupported, "conversion between UTF8 and %s is not supported", e)
		}
	}
	side := "source"
	if to {
		side = "destination"
	}
	return sqlerr.New(sqlerr.InvalidParameterValue, "invalid %s encoding name \"%s\"", side, name)
}

// keyedHash hashes a random call's key with row, and with the ordinal
// of the row's copy if the call has one (CountCopies) and it is not the
// first: the call's random bytes for that copy of the row.
func keyedHash(name string, args []Scalar, row []repr.Datum) ([]byte, error) {
	if len(args) != 1 && len(args) != 2 {
		return nil, sqlerr.AssertionFailedf("%s evaluated without a key", name)
	}
	key, err := args[0].Eval(row)
	if err != nil {
		return nil, err
	}
	if key.Kind() != repr.KindBytea {
		return nil, sqlerr.AssertionFailedf("%s key is %s", name, key.Kind())
	}
	h := sha256.New()
	h.Write([]byte(key.Bytes()))
	h.Write(repr.PackRow(row...))
	if len(args) == 2 {
		n, err := args[1].Eval(row)
		if err != nil {
			return nil, err
		}
		if n.Kind() != repr.KindInt8 {
			return nil, sqlerr.AssertionFailedf("%s copy ordinal is %s", name, n.Kind())
		}
		if n.Int() != 0 {
			h.Write(binary.BigEndian.AppendUint64(nil, uint64(n.Int())))
		}
	}
	return h.Sum(nil), nil
}

// CopyOrdinal is the ordinal, from 0, of the copy being evaluated of a
// row that stands for several equal rows: an operator that evaluates
// such a row once per copy sets *N before each. Invariant: N is the
// operator's own, never shared between workers.
type CopyOrdinal struct{ N *int64 }

func (c CopyOrdinal) Eval([]repr.Datum) (repr.Datum, error) { return repr.NewInt8(*c.N), nil }
func (c CopyOrdinal) Typ([]ColumnType) ColumnType           { return ColumnType{Type: repr.Int8} }
func (c CopyOrdinal) Columns(dst []int) []int               { return dst }
func (c CopyOrdinal) String() string                        { return "copy_ordinal()" }

// CountCopies returns steps, a chain of Map, Filter, Project and FlatMap
// as StepsCallPerRow takes it, with each keyed random() and
// gen_random_uuid() call given the copy ordinal *n as well as its key:
// each copy of a row draws a value of its own, and the same copy the
// same value again, so that a retraction of n copies retracts what
// their insertion added. Only the steps' own scalars are rewritten, not
// their inputs.
func CountCopies(steps []Relation, n *int64) []Relation {
	f := func(c CallVariadic) Scalar {
		if (c.Func != GenRandomUUID && c.Func != Random) || len(c.Args) != 1 {
			return c
		}
		return CallVariadic{Func: c.Func, Args: []Scalar{c.Args[0], CopyOrdinal{N: n}}}
	}
	scs := func(ss []Scalar) []Scalar {
		out := make([]Scalar, len(ss))
		for i, s := range ss {
			out[i] = mapCallsScalar(s, f)
		}
		return out
	}
	out := make([]Relation, len(steps))
	for i, s := range steps {
		switch st := s.(type) {
		case Map:
			st.Scalars = scs(st.Scalars)
			out[i] = st
		case Filter:
			st.Predicates = scs(st.Predicates)
			out[i] = st
		case FlatMap:
			st.Args = scs(st.Args)
			out[i] = st
		default:
			out[i] = s
		}
	}
	return out
}

// genRandomUUID computes gen_random_uuid for row from the call's key.
func genRandomUUID(args []Scalar, row []repr.Datum) (repr.Datum, error) {
	full, err := keyedHash("gen_random_uuid()", args, row)
	if err != nil {
		return repr.Null, err
	}
	sum := full[:16]
	sum[6] = sum[6]&0x0f | 0x40 // version 4
	sum[8] = sum[8]&0x3f | 0x80 // the RFC 4122 variant
	return repr.UUIDFromBytes(sum)
}

// KeyRandomCalls returns r with each gen_random_uuid() and random() call
// given its own
// key, a bytea literal of 16 bytes that key returns: the coordinator's
// random source.
func KeyRandomCalls(r Relation, key func() []byte) Relation {
	return MapCalls(r, func(c CallVariadic) Scalar {
		if (c.Func != GenRandomUUID && c.Func != Random) || len(c.Args) != 0 {
			return c
		}
		return CallVariadic{Func: c.Func, Args: []Scalar{Literal{Value: repr.NewBytea(string(key())), Type: repr.Bytea}}}
	})
}

// ContainsRandom reports whether r calls gen_random_uuid or random()
// anywhere: a view
// cannot, since no statement gives the call its key.
func ContainsRandom(r Relation) bool {
	found := false
	MapCalls(r, func(c CallVariadic) Scalar {
		found = found || c.Func == GenRandomUUID || c.Func == Random
		return c
	})
	return found
}
