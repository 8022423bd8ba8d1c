package expr

import (
	"slices"
	"strings"

	"freshet/repr"
	"freshet/sqlerr"
)

// windowAcc accumulates a WindowAgg call's aggregate over a frame's rows,
// added in the window's order. Its zero value is not ready: use
// newWindowAcc.
type windowAcc struct {
	agg   AggregateFunc
	t     repr.Type
	delim string
	// count is the number of values added that are not NULL; rows the
	// number of values added, NULLs included (ArrayAgg keeps NULLs).
	count, rows int64
	v           repr.Datum
	text        strings.Builder
	elems       []repr.Datum
}

func newWindowAcc(c WindowCall) *windowAcc {
	return &windowAcc{agg: c.Agg, t: c.Type.Type, delim: c.Delimiter}
}

func (a *windowAcc) add(v repr.Datum) error {
	a.rows++
	if a.agg == ArrayAgg {
		a.elems = append(a.elems, v)
		return nil
	}
	if v.IsNull() {
		return nil
	}
	a.count++
	switch a.agg {
	case Count:
	case Sum:
		x, err := repr.Cast(v, a.t)
		if err != nil {
			return err
		}
		if a.count == 1 {
			a.v = x
			return nil
		}
		a.v, err = repr.Add(a.v, x)
		return err
	case Min, Max:
		if a.count == 1 {
			a.v = v
			return nil
		}
		if c := sqlCompare(v, a.v); (a.agg == Min && c < 0) || (a.agg == Max && c > 0) {
			a.v = v
		}
	case StringAgg:
		if a.count > 1 {
			a.text.WriteString(a.delim)
		}
		a.text.WriteString(repr.FormatText(v))
	default:
		return sqlerr.AssertionFailedf("aggregate %s as a window function", a.agg)
	}
	return nil
}

// value is the aggregate of the values added so far: count 0 and NULL
// for the others when there are none (ArrayAgg: no rows).
func (a *windowAcc) value() repr.Datum {
	switch a.agg {
	case Count:
		return repr.NewInt8(a.count)
	case ArrayAgg:
		if a.rows == 0 {
			return repr.Null
		}
		return repr.NewArray(a.t.Elem(), slices.Clone(a.elems))
	}
	if a.count == 0 {
		return repr.Null
	}
	if a.agg == StringAgg {
		return repr.NewText(a.text.String())
	}
	return a.v
}
