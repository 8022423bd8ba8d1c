package expr

import (
	"freshet/repr"
	"freshet/sqlerr"
)

func (f BinaryFunc) isBitwise() bool { return f >= BitAnd && f <= ShiftRight }

// bitwise computes a bitwise operator of smallint, integer or bigint
// values as PostgreSQL's int2and, int4shl and friends do: in the left
// operand's width, a shift by the count modulo the width (as the C shift
// of the machines PostgreSQL runs on), a smallint shifted as an integer
// and cut back to 16 bits.
func bitwise(f BinaryFunc, a, b repr.Datum) (repr.Datum, error) {
	x, y := a.Int(), b.Int()
	var v int64
	switch f {
	case BitAnd:
		v = x & y
	case BitOr:
		v = x | y
	case BitXor:
		v = x ^ y
	case ShiftLeft, ShiftRight:
		width := int64(32)
		if a.Kind() == repr.KindInt8 {
			width = 64
		}
		n := uint(y & (width - 1))
		if f == ShiftLeft {
			v = x << n
		} else {
			v = x >> n
		}
	}
	switch a.Kind() {
	case repr.KindInt2:
		return repr.NewInt2(int16(v)), nil
	case repr.KindInt4:
		return repr.NewInt4(int32(v)), nil
	case repr.KindInt8:
		return repr.NewInt8(v), nil
	}
	return repr.Null, sqlerr.AssertionFailedf("bitwise %s of %s", f, a.Kind())
}
