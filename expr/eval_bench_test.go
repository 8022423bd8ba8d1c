package expr

import (
	"testing"

	"freshet/repr"
)

// BenchmarkEvalOrderExprs evaluates the columns the benchmark's load
// computes from generate_series's g: ((g * 37) % 10000) + 1 and
// (g % 1000)::numeric / 10.0, one row at a time as a Map does.
func BenchmarkEvalOrderExprs(b *testing.B) {
	ten, err := repr.ParseTextIn(repr.Numeric, "10.0", nil)
	if err != nil {
		b.Fatal(err)
	}
	lit := func(i int32) Scalar { return Literal{Value: repr.NewInt4(i), Type: repr.Int4} }
	customer := CallBinary{Func: Add, Left: CallBinary{Func: Mod, Left: CallBinary{Func: Mul, Left: Column{0}, Right: lit(37)}, Right: lit(10000)}, Right: lit(1)}
	amount := CallBinary{Func: Div, Left: Cast{Arg: CallBinary{Func: Mod, Left: Column{0}, Right: lit(1000)}, To: repr.Numeric}, Right: Literal{Value: ten, Type: repr.Numeric}}
	row := make([]repr.Datum, 1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		row[0] = repr.NewInt4(int32(i))
		if _, err := customer.Eval(row); err != nil {
			b.Fatal(err)
		}
		if _, err := amount.Eval(row); err != nil {
			b.Fatal(err)
		}
	}
}
