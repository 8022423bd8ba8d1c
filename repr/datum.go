package repr

import (
	"math"
	"unsafe"

	"github.com/cockroachdb/apd/v3"
)

// Datum is one SQL value, or NULL. It is a small struct with a kind tag
// rather than an interface over per-type structs, so that datums live in
// slices without one heap allocation each and can be decoded from rows
// without allocating (numerics and strings aside). Which fields hold the
// value depends on the kind:
//
//	bool                      i: 0 or 1
//	int2, int4, int8          i: the value
//	float4, float8            i: math.Float64bits of the value (a float4
//	                          is held exactly as a float64)
//	numeric                   i: the coefficient and j: the display
//	                          scale, if they fit (numeric_small.go);
//	                          otherwise p: the *apd.Decimal, whose
//	                          exponent carries the display scale
//	text, varchar, bpchar,    p and j: the string's bytes and length
//	unknown, and the other    (str); bpchar already padded to its length
//	kinds held as bytes       by input and casts. An enum's i is its sort
//	                          position, a jsonb's the length of its key,
//	                          an array's its element kind and n its length
//	date                      i: days since 2000-01-01
//	timestamp, timestamptz    i: microseconds since 2000-01-01 00:00:00
//	                          (UTC for timestamptz)
//	interval                  i: microseconds; j: months<<32 | days
//
// The zero Datum is NULL. A NULL carries no kind: the column's type says
// what it would have been.
//
// Datums are values: copy them freely. The *apd.Decimal of a numeric is
// shared by the copies and is never modified after the datum is built;
// code that computes a numeric allocates a new Decimal.
//
// A datum is four words, with no more than four fields, so that Go keeps
// one in registers: passed to and returned from a function, as every
// Scalar's Eval does for every row, it is not spilled to memory and read
// back. A string would be two of the four words, so it is held as its
// pointer and length, and the pointer also holds a numeric's decimal.
// Two datums of equal strings may therefore differ under == and
// reflect.DeepEqual, which compare the pointer: compare values with
// Compare.
type Datum struct {
	head
	i int64
	j int64
	p unsafe.Pointer
}

// head is a datum's kind, whether it is non-NULL, and an array's length,
// in one word.
type head struct {
	kind  Kind
	valid bool
	n     uint32
}

// stringDatum returns a datum of kind k whose value is held as the bytes
// of s.
func stringDatum(k Kind, s string) Datum {
	return Datum{head: head{kind: k, valid: true}, j: int64(len(s)), p: unsafe.Pointer(unsafe.StringData(s))}
}

// str returns the bytes of a datum held as a string, and "" for a datum
// of another kind: their p is nil, but for a decimal's, with j 0.
func (d Datum) str() string {
	if d.p == nil {
		return ""
	}
	return unsafe.String((*byte)(d.p), int(d.j))
}

// dec returns the decimal of a numeric datum held as one.
func (d Datum) dec() *apd.Decimal { return (*apd.Decimal)(d.p) }

// Null is the SQL NULL.
var Null = Datum{}

// Infinite dates and timestamps, as PostgreSQL stores 'infinity' and
// '-infinity': the extreme values of their representations, so that they
// sort below and above every finite value.
const (
	DateNegInfinity      = math.MinInt32
	DatePosInfinity      = math.MaxInt32
	TimestampNegInfinity = math.MinInt64
	TimestampPosInfinity = math.MaxInt64
)

// IntervalValue is the value of an interval, as PostgreSQL keeps it: a
// number of months, of days and of microseconds, each with its own sign.
// The fields are kept apart because months and days have no fixed
// length: adding '1 mon' to a timestamp moves the calendar month.
type IntervalValue struct {
	Months int32
	Days   int32
	Micros int64
}

// NewBool returns a bool datum.
func NewBool(b bool) Datum {
	var i int64
	if b {
		i = 1
	}
	return Datum{head: head{kind: KindBool, valid: true}, i: i}
}

// NewInt2 returns a smallint datum.
func NewInt2(v int16) Datum { return Datum{head: head{kind: KindInt2, valid: true}, i: int64(v)} }

// NewInt4 returns an integer datum.
func NewInt4(v int32) Datum { return Datum{head: head{kind: KindInt4, valid: true}, i: int64(v)} }

// NewInt8 returns a bigint datum.
func NewInt8(v int64) Datum { return Datum{head: head{kind: KindInt8, valid: true}, i: v} }

// newInt returns an integer datum of kind k; v must fit in k.
func newInt(k Kind, v int64) Datum { return Datum{head: head{kind: k, valid: true}, i: v} }

// NewFloat4 returns a real datum.
func NewFloat4(f float32) Datum {
	return Datum{head: head{kind: KindFloat4, valid: true}, i: int64(math.Float64bits(float64(f)))}
}

// NewFloat8 returns a double precision datum.
func NewFloat8(f float64) Datum {
	return Datum{head: head{kind: KindFloat8, valid: true}, i: int64(math.Float64bits(f))}
}

// newFloat returns a float datum of kind k; f must be exact in k.
func newFloat(k Kind, f float64) Datum {
	return Datum{head: head{kind: k, valid: true}, i: int64(math.Float64bits(f))}
}

// NewNumeric returns a numeric datum of d's value, whose exponent gives
// the display scale (1.50 is 150E-2). The datum may take d over: the
// caller must not modify d afterwards.
func NewNumeric(d *apd.Decimal) Datum {
	if c, s, ok := smallParts(d); ok {
		return newSmallNumeric(c, s)
	}
	return Datum{head: head{kind: KindNumeric, valid: true}, p: unsafe.Pointer(d)}
}

// NewText returns a text datum.
func NewText(s string) Datum { return stringDatum(KindText, s) }

// NewString returns a datum of string kind k (text, varchar, bpchar or
// unknown) holding s as it is: no length is checked and no padding added.
func NewString(k Kind, s string) Datum { return stringDatum(k, s) }

// NewDate returns a date datum for the given number of days since
// 2000-01-01, or DateNegInfinity or DatePosInfinity.
func NewDate(days int32) Datum { return Datum{head: head{kind: KindDate, valid: true}, i: int64(days)} }

// NewTimestamp returns a timestamp without time zone, in microseconds
// since 2000-01-01 00:00:00.
func NewTimestamp(us int64) Datum { return Datum{head: head{kind: KindTimestamp, valid: true}, i: us} }

// NewTime returns a time without time zone of us microseconds since
// midnight; us must lie in 0..24:00:00 (ParseTextIn and the casts check
// input).
func NewTime(us int64) Datum { return Datum{head: head{kind: KindTime, valid: true}, i: us} }

// NewTimestampTZ returns a timestamp with time zone, in microseconds
// since 2000-01-01 00:00:00 UTC.
func NewTimestampTZ(us int64) Datum {
	return Datum{head: head{kind: KindTimestampTZ, valid: true}, i: us}
}

// NewInterval returns an interval datum.
func NewInterval(v IntervalValue) Datum {
	return Datum{head: head{kind: KindInterval, valid: true}, i: v.Micros, j: int64(v.Months)<<32 | int64(uint32(v.Days))}
}

// IsNull reports whether d is NULL.
func (d Datum) IsNull() bool { return !d.valid }

// Kind returns the kind of d's type; it is KindUnknown for NULL.
func (d Datum) Kind() Kind { return d.kind }

// The accessors below return d's value. Each requires d to be a non-NULL
// datum of the kinds it names; on any other datum its result is
// meaningless.

// Bool returns the value of a bool datum.
func (d Datum) Bool() bool { return d.i != 0 }

// Int returns the value of an int2, int4 or int8 datum.
func (d Datum) Int() int64 { return d.i }

// Float returns the value of a float4 or float8 datum.
func (d Datum) Float() float64 { return math.Float64frombits(uint64(d.i)) }

// Numeric returns the decimal of a numeric datum, which it may make
// (SmallNumeric does not). The caller must not modify it.
func (d Datum) Numeric() *apd.Decimal { return d.decimal() }

// Text returns the string of a text, varchar, bpchar or unknown datum.
func (d Datum) Text() string { return d.str() }

// Date returns the days since 2000-01-01 of a date datum.
func (d Datum) Date() int32 { return int32(d.i) }

// Timestamp returns the microseconds since 2000-01-01 of a timestamp or
// timestamptz datum.
func (d Datum) Timestamp() int64 { return d.i }

// Time returns the microseconds since midnight of a time datum.
func (d Datum) Time() int64 { return d.i }

// Interval returns the value of an interval datum.
func (d Datum) Interval() IntervalValue {
	return IntervalValue{Months: int32(d.j >> 32), Days: int32(uint32(d.j)), Micros: d.i}
}

// String returns d's text form, or NULL, for logs and test failures.
func (d Datum) String() string {
	if !d.valid {
		return "NULL"
	}
	return FormatText(d)
}
