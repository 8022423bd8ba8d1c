package repr

import (
	"cmp"
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Compare returns -1, 0 or +1 as a sorts before, with or after b. It is
// the total order of the Row encoding: for datums of one type it agrees
// with bytes.Compare of their encodings, and is SQL's order with these
// choices, PostgreSQL's where PostgreSQL has one:
//
//   - NULL sorts after every value and equals NULL. SQL comparison
//     operators yield NULL for NULL operands; their callers must test
//     IsNull first and not rely on Compare for that.
//   - Integers of different widths compare by value.
//   - Floats: -0 equals 0; NaN equals NaN and sorts after +Infinity.
//   - Numerics compare by value (1.0 equals 1.00); -Infinity < finite <
//     Infinity < NaN, and NaN equals NaN.
//   - Strings compare bytewise (the C collation). char(n) ignores its
//     trailing spaces, as PostgreSQL's bpchar comparison does.
//   - Intervals compare by their span (months as 30 days, days as 24
//     hours), as PostgreSQL's do, but intervals of equal span with
//     different fields are not equal here: '1 mon' sorts before
//     '30 days'. PostgreSQL calls them equal; keeping them apart keeps
//     rows faithful to the values written, at the cost of GROUP BY,
//     DISTINCT and joins telling them apart. The SQL operators = and <
//     on intervals must use CompareIntervals, which follows PostgreSQL.
//   - uuid and bytea compare bytewise, a shorter prefix first, as
//     PostgreSQL's do.
//   - Arrays compare element by element, NULL elements last, and a
//     prefix sorts before the longer array, as PostgreSQL's do.
//   - jsonb values compare as PostgreSQL's jsonb operators do, but
//     values equal but for a number's trailing zeros ('1' and '1.0')
//     are not equal here (jsonb_key.go); the SQL operators must use
//     CompareJSONBKeys.
//   - Datums of different type families (an integer and a numeric,
//     text and a date) are ordered by family, never by value: the
//     planner casts operands to one type before comparing.
func Compare(a, b Datum) int {
	switch {
	case !a.valid && !b.valid:
		return 0
	case !a.valid:
		return 1
	case !b.valid:
		return -1
	}
	if fa, fb := family(a.kind), family(b.kind); fa != fb {
		return cmp.Compare(fa, fb)
	}
	switch a.kind {
	case KindBool, KindInt2, KindInt4, KindInt8, KindDate, KindTimestamp, KindTimestampTZ, KindTime,
		KindOID, KindRegclass, KindRegtype, KindRegproc, KindRegnamespace, KindRegrole:
		return cmp.Compare(a.i, b.i)
	case KindFloat4, KindFloat8:
		return compareFloats(a.Float(), b.Float())
	case KindEnum:
		return cmp.Compare(a.EnumSort(), b.EnumSort())
	case KindNumeric:
		if a.p == nil && b.p == nil {
			if c, ok := compareSmall(a, b); ok {
				return c
			}
		}
		return compareNumerics(a.decimal(), b.decimal())
	case KindText, KindVarchar, KindBpchar, KindUnknown, KindJSON, KindName, KindChar:
		return strings.Compare(comparableString(a), comparableString(b))
	case KindArray, KindUUID, KindBytea, KindJSONB:
		// Array bodies are order-preserving encodings (array.go); uuid
		// and bytea compare their bytes, a prefix first.
		return strings.Compare(a.str(), b.str())
	case KindInterval:
		x, y := a.Interval(), b.Interval()
		if c := CompareIntervals(x, y); c != 0 {
			return c
		}
		if c := cmp.Compare(x.Months, y.Months); c != 0 {
			return c
		}
		return cmp.Compare(x.Days, y.Days)
	}
	return 0
}

// comparableString returns the part of a string datum that comparisons
// see: a char(n) value without its padding.
func comparableString(d Datum) string {
	if d.kind == KindBpchar {
		return trimTrailingSpaces(d.str())
	}
	return d.str()
}

// compareFloats orders floats as PostgreSQL's float8 comparison does.
func compareFloats(x, y float64) int {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	}
	return cmp.Compare(x, y)
}

// numericRank orders the kinds of numeric value.
func numericRank(d *apd.Decimal) int {
	switch {
	case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
		return 3
	case d.Form == apd.Infinite && d.Negative:
		return 0
	case d.Form == apd.Infinite:
		return 2
	}
	return 1
}

// compareNumerics orders numerics as PostgreSQL's numeric comparison.
func compareNumerics(x, y *apd.Decimal) int {
	rx, ry := numericRank(x), numericRank(y)
	if rx != 1 || ry != 1 {
		return cmp.Compare(rx, ry)
	}
	return x.Cmp(y)
}

// CompareIntervals compares two intervals as PostgreSQL does: by their
// span, with a month counted as 30 days and a day as 24 hours, so that
// '1 mon' equals '30 days'.
func CompareIntervals(a, b IntervalValue) int {
	ah, al := intervalSpan(a)
	bh, bl := intervalSpan(b)
	if c := cmp.Compare(ah, bh); c != 0 {
		return c
	}
	return cmp.Compare(al, bl)
}
