package repr

import (
	"bytes"
	"cmp"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// propTypes are the column types the property tests draw from.
var propTypes = []Type{Bool, Int2, Int4, Int8, Float4, Float8, Numeric, NumericOf(12, 3), Text, VarcharOf(4),
	BpcharOf(3), Bpchar, Unknown, Date, Timestamp, TimestampTZ, Interval, UUID, Bytea, Time}

// TestRowProperties checks on seeded random rows that every datum
// round-trips through the Row encoding, that encoding is canonical (a
// decoded row re-encodes to the same bytes), that bytes.Compare of two
// rows of the same types agrees with Compare of their datums column by
// column and with an independent reference order, and that equal rows
// hash alike.
func TestRowProperties(t *testing.T) {
	forSeeds(t, 20, func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
		for range 40 {
			types := make([]Type, 1+rng.IntN(3))
			for i := range types {
				types[i] = propTypes[rng.IntN(len(propTypes))]
			}
			rows := make([][]Datum, 30)
			packed := make([]Row, len(rows))
			for i := range rows {
				rows[i] = make([]Datum, len(types))
				for j, typ := range types {
					rows[i][j] = randomDatum(rng, typ)
				}
				packed[i] = PackRow(rows[i]...)
				decoded, err := packed[i].Datums(types)
				if err != nil {
					t.Fatalf("types %v row %v: %v", types, rows[i], err)
				}
				for j := range decoded {
					if Compare(decoded[j], rows[i][j]) != 0 || decoded[j].IsNull() != rows[i][j].IsNull() {
						t.Fatalf("%s %v decoded as %v", types[j], rows[i][j], decoded[j])
					}
				}
				if again := PackRow(decoded...); !again.Equal(packed[i]) {
					t.Fatalf("%v: re-encoding %x gives %x", rows[i], []byte(packed[i]), []byte(again))
				}
			}
			for i := range rows {
				for j := range rows {
					want, ref := 0, 0
					for c := range types {
						if want == 0 {
							want = Compare(rows[i][c], rows[j][c])
						}
						if ref == 0 {
							ref = referenceCompare(rows[i][c], rows[j][c])
						}
					}
					got := bytes.Compare(packed[i], packed[j])
					if got != want || got != ref {
						t.Fatalf("types %v\n%v\n%v\nbytes.Compare %d, Compare %d, reference %d",
							types, rows[i], rows[j], got, want, ref)
					}
					if got == 0 && packed[i].Hash() != packed[j].Hash() {
						t.Fatalf("equal rows %v and %v hash differently", rows[i], rows[j])
					}
				}
			}
		}
	})
}

// randomDatum returns a random value of typ, drawn often from edge
// cases and small pools so that ties, prefixes and equal values under
// different representations come up.
func randomDatum(rng *rand.Rand, typ Type) Datum {
	if rng.IntN(8) == 0 {
		return Null
	}
	switch typ.Kind() {
	case KindBool:
		return NewBool(rng.IntN(2) == 0)
	case KindInt2, KindInt4, KindInt8:
		lo, hi := intRange(typ.Kind())
		edges := []int64{0, 1, -1, 255, 256, -256, -257, 65535, -65536, lo, hi, lo + 1, hi - 1}
		if rng.IntN(2) == 0 {
			return newInt(typ.Kind(), min(max(edges[rng.IntN(len(edges))], lo), hi))
		}
		v := int64(rng.Uint64() >> rng.IntN(64))
		if rng.IntN(2) == 0 {
			v = -v
		}
		return newInt(typ.Kind(), min(max(v, lo), hi))
	case KindFloat4, KindFloat8:
		edges := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 0.1, -0.1, 1, -1,
			math.SmallestNonzeroFloat64, -math.MaxFloat64, math.MaxFloat64, 1e-300}
		var f float64
		switch rng.IntN(3) {
		case 0:
			f = edges[rng.IntN(len(edges))]
		case 1:
			f = math.Float64frombits(rng.Uint64()) // NaNs with payloads too
		default:
			f = float64(rng.IntN(7)-3) / 2
		}
		if typ.Kind() == KindFloat4 {
			return NewFloat4(float32(f))
		}
		return NewFloat8(f)
	case KindNumeric:
		return randomNumeric(rng, typ)
	case KindText, KindVarchar, KindUnknown, KindBpchar:
		pool := []string{"", "a", "ab", "abc", "b", "a\x00", "\x00", "a ", "a  ", " ", "é", "\xff", "A", "aa"}
		s := pool[rng.IntN(len(pool))]
		if rng.IntN(3) == 0 {
			s += pool[rng.IntN(len(pool))]
		}
		if n, ok := typ.Length(); ok {
			cut, count := charPrefix(s, n)
			s = s[:cut]
			if typ.Kind() == KindBpchar {
				for ; count < n; count++ {
					s += " "
				}
			}
		}
		return NewString(typ.Kind(), s)
	case KindDate:
		edges := []int32{DateNegInfinity, DatePosInfinity, minDate, endDate - 1, 0, -1, 1}
		if rng.IntN(2) == 0 {
			return NewDate(edges[rng.IntN(len(edges))])
		}
		return NewDate(int32(minDate + rng.Int64N(endDate-minDate)))
	case KindTimestamp, KindTimestampTZ:
		edges := []int64{TimestampNegInfinity, TimestampPosInfinity, minTimestamp, endTimestamp - 1, 0, -1, 1}
		us := edges[rng.IntN(len(edges))]
		if rng.IntN(2) == 0 {
			lo, span := int64(minTimestamp), uint64(endTimestamp)+uint64(-minTimestamp)
			us = lo + int64(rng.Uint64N(span))
		}
		return Datum{head: head{kind: typ.Kind(), valid: true}, i: us}
	case KindInterval:
		pool := []IntervalValue{{}, {Months: 1}, {Days: 30}, {Micros: 30 * usPerDay}, {Days: 1}, {Micros: usPerDay},
			{Months: -1}, {Days: -30}, {Micros: -1}, {Micros: 1},
			{Months: math.MaxInt32, Days: math.MaxInt32, Micros: math.MaxInt64},
			{Months: math.MinInt32, Days: math.MinInt32, Micros: math.MinInt64}}
		if rng.IntN(2) == 0 {
			return NewInterval(pool[rng.IntN(len(pool))])
		}
		return NewInterval(IntervalValue{Months: int32(rng.Uint32()), Days: int32(rng.Uint32()), Micros: int64(rng.Uint64())})
	case KindTime:
		edges := []int64{0, 1, usPerDay - 1, usPerDay, usPerHour, 12 * usPerHour}
		if rng.IntN(2) == 0 {
			return NewTime(edges[rng.IntN(len(edges))])
		}
		return NewTime(int64(rng.Uint64N(usPerDay + 1)))
	case KindUUID:
		// Few distinct bytes, so that ties and shared prefixes are common.
		var b [uuidLen]byte
		for i := range b {
			b[i] = []byte{0, 1, 0x7f, 0x80, 0xff}[rng.IntN(5)]
			if rng.IntN(4) == 0 {
				b[i] = byte(rng.Uint32())
			}
		}
		return NewUUID(b)
	case KindBytea:
		pool := []string{"", "\x00", "\x00\x00", "\x00\x01", "\x01", "\xff", "\xff\x00", "a", "ab", "\x00\xff", "\x7f\x80"}
		s := pool[rng.IntN(len(pool))]
		for range rng.IntN(3) {
			s += pool[rng.IntN(len(pool))]
		}
		return NewBytea(s)
	}
	panic("randomDatum: unsupported type " + typ.String())
}

// randomNumeric returns NaN, an infinity, or a finite value with a
// random number of digits and exponent, sometimes written with extra
// trailing zeros (a different scale of the same value).
func randomNumeric(rng *rand.Rand, typ Type) Datum {
	if _, _, constrained := typ.NumericPrecision(); !constrained {
		switch rng.IntN(10) {
		case 0:
			return NewNumeric(numericNaN)
		case 1:
			return NewNumeric(numericPosInf)
		case 2:
			return NewNumeric(numericNegInf)
		}
	}
	d := new(apd.Decimal)
	digits := 1 + rng.IntN(30)
	var coeff big.Int
	for range digits {
		coeff.Mul(&coeff, big.NewInt(10))
		coeff.Add(&coeff, big.NewInt(int64(rng.IntN(10))))
	}
	if rng.IntN(3) == 0 {
		coeff.SetInt64(int64(rng.IntN(20))) // small values tie often
	}
	d.Coeff.SetMathBigInt(&coeff)
	d.Exponent = int32(rng.IntN(60) - 30)
	if rng.IntN(10) == 0 {
		d.Exponent = int32(rng.IntN(600) - 300) // beyond one-byte exponents
	}
	d.Negative = rng.IntN(2) == 0
	if p, s, ok := typ.NumericPrecision(); ok {
		d = roundToScale(d, int32(s))
		if intDigits(d) > int64(p-s) {
			d = apd.New(int64(rng.IntN(1000)-500), int32(-s))
		}
		return NewNumeric(d)
	}
	if zeros := rng.IntN(4); zeros > 0 {
		d.Coeff.Mul(&d.Coeff, pow10(int64(zeros)))
		d.Exponent -= int32(zeros)
	}
	return NewNumeric(d)
}

// referenceCompare orders two datums of one type by a route independent
// of the encoding and of Compare's own code where it can: numerics as
// exact rationals, intervals by a big-integer span, strings by bytes.
func referenceCompare(a, b Datum) int {
	switch {
	case a.IsNull() && b.IsNull():
		return 0
	case a.IsNull():
		return 1
	case b.IsNull():
		return -1
	}
	switch a.Kind() {
	case KindNumeric:
		ra, rb := numericRank(a.Numeric()), numericRank(b.Numeric())
		if ra != 1 || rb != 1 {
			return cmp.Compare(ra, rb)
		}
		x, _ := new(big.Rat).SetString(FormatText(a))
		y, _ := new(big.Rat).SetString(FormatText(b))
		return x.Cmp(y)
	case KindFloat4, KindFloat8:
		x, y := a.Float(), b.Float()
		switch {
		case x != x && y != y:
			return 0
		case x != x:
			return 1
		case y != y:
			return -1
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case KindInterval:
		span := func(v IntervalValue) *big.Int {
			s := big.NewInt(int64(v.Months))
			s.Mul(s, big.NewInt(30))
			s.Add(s, big.NewInt(int64(v.Days)))
			s.Mul(s, big.NewInt(usPerDay))
			return s.Add(s, big.NewInt(v.Micros))
		}
		x, y := a.Interval(), b.Interval()
		if c := span(x).Cmp(span(y)); c != 0 {
			return c
		}
		if c := cmp.Compare(x.Months, y.Months); c != 0 {
			return c
		}
		return cmp.Compare(x.Days, y.Days)
	case KindText, KindVarchar, KindUnknown:
		return bytes.Compare([]byte(a.Text()), []byte(b.Text()))
	case KindBpchar:
		return bytes.Compare(bytes.TrimRight([]byte(a.Text()), " "), bytes.TrimRight([]byte(b.Text()), " "))
	case KindBytea:
		return bytes.Compare([]byte(a.Bytes()), []byte(b.Bytes()))
	case KindUUID:
		x, y := a.UUID(), b.UUID()
		return bytes.Compare(x[:], y[:])
	}
	return cmp.Compare(a.i, b.i)
}

// TestTextRoundTrip checks on seeded random datums of every type that
// ParseText reads FormatText's output back as the same value.
func TestTextRoundTrip(t *testing.T) {
	forSeeds(t, 20, func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, seed^0x7e47))
		for range 500 {
			typ := propTypes[rng.IntN(len(propTypes))]
			d := randomDatum(rng, typ)
			if d.IsNull() || typ.Kind().IsString() && checkEncoding(d.Text()) != nil {
				continue
			}
			if typ.Kind() == KindInterval {
				// Input range: each field of the text must fit an int32.
				v := d.Interval()
				if v.Micros/usPerHour > math.MaxInt32 || v.Micros/usPerHour < math.MinInt32 {
					continue
				}
			}
			text := FormatText(d)
			back, err := ParseText(typ, text)
			if err != nil {
				t.Fatalf("ParseText(%s, %q): %v", typ, text, err)
			}
			if Compare(back, d) != 0 || FormatText(back) != text {
				t.Fatalf("%s %q read back as %q", typ, text, FormatText(back))
			}
		}
	})
}
