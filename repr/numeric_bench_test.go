package repr

import "testing"

// BenchmarkNumericLoadExpr evaluates the amount of the benchmark's
// orders, (g % 1000) / 10.0 cast to numeric(10,2), as its INSERT …
// SELECT does: an integer remainder, its cast to numeric, a division
// by a numeric literal and the cast to the column's type.
func BenchmarkNumericLoadExpr(b *testing.B) {
	ten, err := ParseTextIn(Numeric, "10.0", nil)
	if err != nil {
		b.Fatal(err)
	}
	to := NumericOf(10, 2)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m, err := Mod(NewInt4(int32(i)), NewInt4(1000))
		if err != nil {
			b.Fatal(err)
		}
		n, err := CastIn(m, Numeric, nil)
		if err != nil {
			b.Fatal(err)
		}
		q, err := Div(n, ten)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := CastIn(q, to, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNumericAddMul adds and multiplies numerics of a few digits,
// as sums and prices do.
func BenchmarkNumericAddMul(b *testing.B) {
	x, _ := ParseTextIn(Numeric, "12.34", nil)
	y, _ := ParseTextIn(Numeric, "0.5", nil)
	b.ReportAllocs()
	for b.Loop() {
		s, err := Add(x, y)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Mul(s, y); err != nil {
			b.Fatal(err)
		}
	}
}
