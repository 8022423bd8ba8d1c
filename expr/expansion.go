package expr

import (
	"math"

	"freshet/repr"
	"freshet/sqlerr"
)

// Expansion is what a table function yields for one row of arguments,
// read by output ordinal: a reader that wants only some ordinals (a
// worker's share of the rows) asks for those. A generate_series is
// computed from its ordinals and never held whole; any other function
// is evaluated whole, once, and sliced.
//
// The zero Expansion has no values.
type Expansion struct {
	// n is the number of values.
	n int
	// vals holds all n values, unless series is set.
	vals []repr.Datum
	// series: the value at ordinal i is start + i*step, of type t.
	// Invariant: every one of the n values casts to t.
	series      bool
	start, step int64
	t           repr.Type
}

// ExpandTableFunc evaluates f over args as EvalTableFunc does, with the
// same values in the same order and the same error, and returns them as
// an Expansion.
func ExpandTableFunc(f TableFunc, args []repr.Datum, t repr.Type) (Expansion, error) {
	if f == GenerateSeries {
		if x, ok := seriesExpansion(args, t); ok {
			return x, nil
		}
	}
	vals, err := EvalTableFunc(f, args, t)
	if err != nil {
		return Expansion{}, err
	}
	return Expansion{n: len(vals), vals: vals}, nil
}

// Len returns the number of values.
func (x Expansion) Len() int { return x.n }

// Values appends the values of ordinals lo up to hi to dst and returns
// it; 0 <= lo <= hi <= Len(). An error is a bug: the series' ends were
// cast when it was made.
func (x Expansion) Values(dst []repr.Datum, lo, hi int) ([]repr.Datum, error) {
	if !x.series {
		return append(dst, x.vals[lo:hi]...), nil
	}
	for i := lo; i < hi; i++ {
		// Modular arithmetic: the true value is in range, so the
		// wrapped sum is it.
		v := int64(uint64(x.start) + uint64(i)*uint64(x.step))
		d, err := repr.Cast(repr.NewInt8(v), x.t)
		if err != nil {
			return dst, sqlerr.AssertionFailedf("generate_series value %d of %v: %v", v, x.t, err)
		}
		dst = append(dst, d)
	}
	return dst, nil
}

// seriesExpansion returns generate_series(args) of type t as a series
// computed from its ordinals, or false if it is not one: an argument is
// NULL, the step is 0 (an error, which generateSeries raises), the
// count does not fit an int, t is not an integer type, or an end of the
// series does not cast to t (generateSeries raises the error at the value
// that fails). Between two ends that cast to an integer type, every
// value does.
func seriesExpansion(args []repr.Datum, t repr.Type) (Expansion, bool) {
	if !t.Kind().IsInt() {
		return Expansion{}, false
	}
	for _, a := range args {
		if a.IsNull() {
			return Expansion{}, false
		}
	}
	start, stop, step := args[0].Int(), args[1].Int(), int64(1)
	if len(args) > 2 {
		step = args[2].Int()
	}
	var span, stride uint64
	switch {
	case step > 0 && start <= stop:
		span, stride = uint64(stop)-uint64(start), uint64(step)
	case step < 0 && start >= stop:
		span, stride = uint64(start)-uint64(stop), -uint64(step)
	case step != 0:
		return Expansion{}, true // empty
	default:
		return Expansion{}, false
	}
	last := span / stride
	if last >= math.MaxInt {
		return Expansion{}, false
	}
	x := Expansion{n: int(last) + 1, series: true, start: start, step: step, t: t}
	for _, v := range []int64{start, int64(uint64(start) + last*uint64(step))} {
		if _, err := repr.Cast(repr.NewInt8(v), t); err != nil {
			return Expansion{}, false
		}
	}
	return x, true
}
