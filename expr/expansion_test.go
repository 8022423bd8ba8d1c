package expr

import (
	"fmt"
	"math"
	"testing"

	"freshet/repr"
)

// TestExpansionMatchesEval: an Expansion, read whole or by any cut of
// its ordinals, has EvalTableFunc's values in its order, or its error.
func TestExpansionMatchesEval(t *testing.T) {
	i8 := func(vs ...int64) []repr.Datum {
		var ds []repr.Datum
		for _, v := range vs {
			ds = append(ds, repr.NewInt8(v))
		}
		return ds
	}
	i4 := func(vs ...int32) []repr.Datum {
		var ds []repr.Datum
		for _, v := range vs {
			ds = append(ds, repr.NewInt4(v))
		}
		return ds
	}
	arr, err := repr.ParseTextIn(repr.ArrayOf(repr.Int4), "{3,1,NULL,2}", repr.UTC)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f    TableFunc
		args []repr.Datum
		t    repr.Type
	}{
		{GenerateSeries, i4(1, 10), repr.Int4},
		{GenerateSeries, i4(1, 10, 3), repr.Int4},
		{GenerateSeries, i4(10, 1, -4), repr.Int4},
		{GenerateSeries, i4(5, 5), repr.Int4},
		{GenerateSeries, i4(5, 4), repr.Int4},
		{GenerateSeries, i4(4, 5, -1), repr.Int4},
		{GenerateSeries, i4(1, 5, 0), repr.Int4},
		{GenerateSeries, []repr.Datum{repr.NewInt4(1), repr.Null}, repr.Int4},
		{GenerateSeries, i4(math.MaxInt32-2, math.MaxInt32), repr.Int4},
		{GenerateSeries, i4(math.MinInt32+2, math.MinInt32, -1), repr.Int4},
		{GenerateSeries, i8(math.MaxInt64-5, math.MaxInt64, 2), repr.Int8},
		{GenerateSeries, i8(math.MinInt64+5, math.MinInt64, math.MinInt64), repr.Int8},
		{GenerateSeries, i8(math.MinInt64, math.MaxInt64, math.MaxInt64), repr.Int8},
		// An end that does not fit the column's type: the error.
		{GenerateSeries, i8(math.MaxInt32-1, math.MaxInt32+1), repr.Int4},
		{Unnest, []repr.Datum{arr}, repr.Int4},
	} {
		t.Run(fmt.Sprintf("%v%v", c.f, c.args), func(t *testing.T) {
			want, wantErr := EvalTableFunc(c.f, c.args, c.t)
			x, err := ExpandTableFunc(c.f, c.args, c.t)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("error %v, want %v", err, wantErr)
			}
			if err != nil {
				return
			}
			if x.Len() != len(want) {
				t.Fatalf("%d values, want %d", x.Len(), len(want))
			}
			for cut := 1; cut <= x.Len()+1; cut++ {
				var got []repr.Datum
				for lo := 0; lo < x.Len(); lo += cut {
					if got, err = x.Values(got, lo, min(lo+cut, x.Len())); err != nil {
						t.Fatal(err)
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("cut by %d: %v, want %v", cut, got, want)
				}
			}
		})
	}
}
