package repr

import (
	"bytes"
	"testing"
)

// benchDatums is a typical row: a key, a name, an amount and a time.
func benchDatums(b *testing.B) ([]Type, []Datum) {
	types := []Type{Int8, Text, NumericOf(12, 2), TimestampTZ, Bool}
	datums := []Datum{
		NewInt8(123456789),
		NewText("customer-00042"),
		mustParse(b, NumericOf(12, 2), "1234.50"),
		mustParse(b, TimestampTZ, "2024-01-02 03:04:05.678+00"),
		NewBool(false),
	}
	return types, datums
}

func BenchmarkRowPack(b *testing.B) {
	_, datums := benchDatums(b)
	var p RowPacker
	var arena []byte
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range datums {
			p.Push(d)
		}
		arena, _ = p.AppendTo(arena[:0])
	}
}

func BenchmarkRowPackInts(b *testing.B) {
	var p RowPacker
	var arena []byte
	b.ReportAllocs()
	for b.Loop() {
		for i := range int64(8) {
			p.Push(NewInt8(i * 1000))
		}
		arena, _ = p.AppendTo(arena[:0])
	}
}

func BenchmarkRowCompare(b *testing.B) {
	_, datums := benchDatums(b)
	x := PackRow(datums...)
	other := append([]Datum(nil), datums...)
	other[4] = NewBool(true) // differ in the last column: compare every byte
	y := PackRow(other...)
	b.ReportAllocs()
	for b.Loop() {
		if bytes.Compare(x, y) >= 0 {
			b.Fatal("order")
		}
	}
}

func BenchmarkCompareDatums(b *testing.B) {
	_, x := benchDatums(b)
	_, y := benchDatums(b)
	b.ReportAllocs()
	for b.Loop() {
		for i := range x {
			if Compare(x[i], y[i]) != 0 {
				b.Fatal("order")
			}
		}
	}
}

func BenchmarkRowHash(b *testing.B) {
	_, datums := benchDatums(b)
	r := PackRow(datums...)
	b.SetBytes(int64(len(r)))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Hash()
	}
}

func BenchmarkRowDecode(b *testing.B) {
	types, datums := benchDatums(b)
	r := PackRow(datums...)
	dst := make([]Datum, 0, len(types))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = r.DecodeInto(dst, types); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRowDecodeInts(b *testing.B) {
	types := []Type{Int8, Int4, Int2, Float8, Date, Timestamp}
	r := PackRow(NewInt8(-123456789), NewInt4(42), NewInt2(-7), NewFloat8(2.5), NewDate(8766), NewTimestamp(1e15))
	dst := make([]Datum, 0, len(types))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = r.DecodeInto(dst, types); err != nil {
			b.Fatal(err)
		}
	}
}
