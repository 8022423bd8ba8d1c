package expr

import (
	"freshet/repr"
)

// statsTyp is the type of a statistics function's result: a numeric
// whose scale a row restores as PostgreSQL gives it
// (repr.StatsType), the numerator's scale being that of the sum of
// squares (args[2]).
func (c CallVariadic) statsTyp(input []ColumnType) ColumnType {
	s := c.Args[2].Typ(input).Type.DisplayScale()
	return ColumnType{Type: repr.StatsType(c.Func == StddevSamp || c.Func == StddevPop, s), Nullable: true}
}

// isStats reports whether f is one of the statistics functions.
func (f VariadicFunc) isStats() bool { return f >= VarSamp && f <= StddevPop }

// evalStats computes a variance or standard deviation from a group's
// count n, sum of values sx and sum of squares sx2 (numerics), as
// PostgreSQL's numeric_stddev_internal does: the numerator n·sx2 − sx²
// exactly, a quotient by n·(n−1) (sample) or n·n (population) with the
// scale of a numeric division, and its square root at that scale. NULL
// with no values, or with one for the sample forms; 0 when the numerator
// is not positive.
func (c CallVariadic) evalStats(row []repr.Datum) (repr.Datum, error) {
	var args [3]repr.Datum
	for i, a := range c.Args {
		v, err := a.Eval(row)
		if err != nil {
			return repr.Null, err
		}
		args[i] = v
	}
	n, sx, sx2 := args[0], args[1], args[2]
	samp := c.Func == VarSamp || c.Func == StddevSamp
	if n.IsNull() || n.Int() == 0 || (samp && n.Int() == 1) || sx.IsNull() || sx2.IsNull() {
		return repr.Null, nil
	}
	count, err := repr.Cast(n, repr.Numeric)
	if err != nil {
		return repr.Null, err
	}
	nsx2, err := repr.Mul(count, sx2)
	if err != nil {
		return repr.Null, err
	}
	sq, err := repr.Mul(sx, sx)
	if err != nil {
		return repr.Null, err
	}
	num, err := repr.Sub(nsx2, sq)
	if err != nil {
		return repr.Null, err
	}
	zero, _ := repr.Cast(repr.NewInt4(0), repr.Numeric)
	if repr.Compare(num, zero) <= 0 {
		// Rounding of inexact values can make it negative.
		return zero, nil
	}
	other := count
	if samp {
		if other, err = repr.Cast(repr.NewInt8(n.Int()-1), repr.Numeric); err != nil {
			return repr.Null, err
		}
	}
	den, err := repr.Mul(count, other)
	if err != nil {
		return repr.Null, err
	}
	v, err := repr.Div(num, den)
	if err != nil || c.Func == VarSamp || c.Func == VarPop {
		return v, err
	}
	return repr.NumericSqrt(v)
}
