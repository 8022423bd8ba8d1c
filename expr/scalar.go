package expr

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"freshet/repr"
	"freshet/sqlerr"
)

// Scalar is an expression over the columns of one row.
type Scalar interface {
	// Eval computes the expression over row, whose columns have the
	// input's types. An error carries its SQLSTATE.
	Eval(row []repr.Datum) (repr.Datum, error)
	// Typ returns the expression's type given the input's column types.
	Typ(input []ColumnType) ColumnType
	// Columns appends the input columns the expression reads.
	Columns(dst []int) []int
	String() string
}

// Column reads input column Index.
type Column struct{ Index int }

// Literal is a constant.
type Literal struct {
	Value repr.Datum
	Type  repr.Type
}

// CallUnary applies a unary function.
type CallUnary struct {
	Func UnaryFunc
	Arg  Scalar
}

// CallBinary applies a binary function.
type CallBinary struct {
	Func        BinaryFunc
	Left, Right Scalar
}

// CallVariadic applies a variadic function.
type CallVariadic struct {
	Func VariadicFunc
	Args []Scalar
}

// If is CASE WHEN Cond THEN Then ELSE Else END: Then only when Cond is
// TRUE (NULL counts as not true). Only the chosen branch is evaluated, so
// an error in the other branch is never raised.
type If struct{ Cond, Then, Else Scalar }

// Cast converts Arg to type To, with PostgreSQL's explicit-cast rules.
// Zone is the session time zone the planner found, for the casts that
// depend on one (timestamptz to and from text, timestamp and date); nil
// is UTC.
//
// Labels is set for a cast to an enum type or an array of one: the enum's labels when the
// statement was planned, which reading text needs. A plan that holds
// them is fixed to the labels of its planning: a label added later is
// not read by it (docs/types.md).
type Cast struct {
	Arg    Scalar
	To     repr.Type
	Zone   *repr.Zone
	Labels *repr.EnumLabels
}

// NullOf returns the NULL literal of type t.
func NullOf(t repr.Type) Literal { return Literal{Value: repr.Null, Type: t} }

// Bool returns a boolean literal.
func Bool(b bool) Literal { return Literal{Value: repr.NewBool(b), Type: repr.Bool} }

// Eval implements Scalar.
func (c Column) Eval(row []repr.Datum) (repr.Datum, error) { return row[c.Index], nil }

// Eval implements Scalar.
func (l Literal) Eval([]repr.Datum) (repr.Datum, error) { return l.Value, nil }

// Eval implements Scalar.
func (c CallUnary) Eval(row []repr.Datum) (repr.Datum, error) {
	a, err := c.Arg.Eval(row)
	if err != nil {
		return repr.Null, err
	}
	if a.IsNull() && c.Func.propagatesNull() {
		return repr.Null, nil
	}
	switch c.Func {
	case Not:
		return repr.NewBool(!a.Bool()), nil
	case Neg:
		return repr.Neg(a)
	case IsNull:
		return repr.NewBool(a.IsNull()), nil
	case IsTrue:
		return repr.NewBool(!a.IsNull() && a.Bool()), nil
	case IsFalse:
		return repr.NewBool(!a.IsNull() && !a.Bool()), nil
	case Abs:
		zero, err := repr.Cast(repr.NewInt4(0), a.Kind().Type())
		if err != nil {
			return repr.Null, err
		}
		if sqlCompare(a, zero) < 0 {
			return repr.Neg(a)
		}
		return a, nil
	case Lower:
		return repr.NewText(strings.ToLower(a.Text())), nil
	case Upper:
		return repr.NewText(strings.ToUpper(a.Text())), nil
	case Length:
		return repr.NewInt4(int32(utf8.RuneCountInString(a.Text()))), nil
	case Floor, Ceil:
		return roundToward(a, c.Func == Ceil)
	case OctetLength:
		return repr.NewInt4(int32(len(a.Text()))), nil
	case ASCII:
		r, _ := utf8.DecodeRuneInString(a.Text())
		if a.Text() == "" {
			r = 0
		}
		return repr.NewInt4(int32(r)), nil
	case Chr:
		return chr(a.Int())
	}
	return repr.Null, sqlerr.AssertionFailedf("unknown unary function %d", c.Func)
}

// Eval implements Scalar.
func (c CallBinary) Eval(row []repr.Datum) (repr.Datum, error) {
	switch c.Func {
	case And, Or:
		return c.evalLogic(row)
	}
	a, err := c.Left.Eval(row)
	if err != nil {
		return repr.Null, err
	}
	b, err := c.Right.Eval(row)
	if err != nil {
		return repr.Null, err
	}
	return applyBinary(c.Func, a, b)
}

// applyBinary applies a binary function other than AND and OR to its
// evaluated arguments. It is apart from CallBinary.Eval, which recurses
// through every operator of an expression, so that the stack frame this
// switch needs is set up once per operator, not once per level.
func applyBinary(f BinaryFunc, a, b repr.Datum) (repr.Datum, error) {
	switch f {
	case IsDistinctFrom:
		return repr.NewBool(!sqlEqualNullSafe(a, b)), nil
	case IsNotDistinctFrom:
		return repr.NewBool(sqlEqualNullSafe(a, b)), nil
	}
	if a.IsNull() || b.IsNull() {
		return repr.Null, nil
	}
	switch f {
	case Add:
		return repr.Add(a, b)
	case Sub:
		return repr.Sub(a, b)
	case Mul:
		return repr.Mul(a, b)
	case Div:
		return repr.Div(a, b)
	case Mod:
		return repr.Mod(a, b)
	case Concat:
		if a.Kind() == repr.KindBytea && b.Kind() == repr.KindBytea {
			return repr.NewBytea(a.Bytes() + b.Bytes()), nil
		}
		return repr.NewText(repr.FormatText(a) + repr.FormatText(b)), nil
	case BitAnd, BitOr, BitXor, ShiftLeft, ShiftRight:
		return bitwise(f, a, b)
	case Like, ILike:
		return like(a.Text(), b.Text(), f == ILike)
	case Regex, RegexI:
		return regexMatch(a.Text(), b.Text(), f == RegexI)
	case Eq:
		return repr.NewBool(sqlCompare(a, b) == 0), nil
	case NotEq:
		return repr.NewBool(sqlCompare(a, b) != 0), nil
	case Lt:
		return repr.NewBool(sqlCompare(a, b) < 0), nil
	case Lte:
		return repr.NewBool(sqlCompare(a, b) <= 0), nil
	case Gt:
		return repr.NewBool(sqlCompare(a, b) > 0), nil
	case Gte:
		return repr.NewBool(sqlCompare(a, b) >= 0), nil
	}
	return repr.Null, sqlerr.AssertionFailedf("unknown binary function %d", f)
}

// sqlCompare compares two non-NULL values as SQL's operators do.
func sqlCompare(a, b repr.Datum) int {
	if a.Kind() == repr.KindInterval && b.Kind() == repr.KindInterval {
		return repr.CompareIntervals(a.Interval(), b.Interval())
	}
	if a.Kind() == repr.KindJSONB && b.Kind() == repr.KindJSONB {
		return repr.CompareJSONBKeys(a, b)
	}
	return repr.Compare(a, b)
}

func sqlEqualNullSafe(a, b repr.Datum) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() && b.IsNull()
	}
	return sqlCompare(a, b) == 0
}

// evalLogic evaluates AND and OR with three-valued logic. Both operands
// are evaluated (SQL does not promise short-circuit order), except that an
// error on one side is ignored when the other side decides the result, as
// PostgreSQL may skip it.
func (c CallBinary) evalLogic(row []repr.Datum) (repr.Datum, error) {
	a, errA := c.Left.Eval(row)
	decisive := c.Func == Or // TRUE decides OR, FALSE decides AND
	if errA == nil && !a.IsNull() && a.Bool() == decisive {
		return repr.NewBool(decisive), nil
	}
	b, errB := c.Right.Eval(row)
	if errB == nil && !b.IsNull() && b.Bool() == decisive {
		return repr.NewBool(decisive), nil
	}
	if errA != nil {
		return repr.Null, errA
	}
	if errB != nil {
		return repr.Null, errB
	}
	if a.IsNull() || b.IsNull() {
		return repr.Null, nil
	}
	return repr.NewBool(!decisive), nil
}

// strictArgs evaluates c's arguments; args is nil (and err too) if one
// is NULL, for the functions that are NULL then.
func (c CallVariadic) strictArgs(row []repr.Datum) (args []repr.Datum, err error) {
	args = make([]repr.Datum, len(c.Args))
	for i, a := range c.Args {
		v, err := a.Eval(row)
		if err != nil || v.IsNull() {
			return nil, err
		}
		args[i] = v
	}
	return args, nil
}

// Eval implements Scalar.
func (c CallVariadic) Eval(row []repr.Datum) (repr.Datum, error) {
	switch c.Func {
	case FormatType:
		oid, err := c.Args[0].Eval(row)
		if err != nil || oid.IsNull() {
			return repr.Null, err
		}
		mod, err := c.Args[1].Eval(row)
		if err != nil {
			return repr.Null, err
		}
		if oid.Int() < 0 || oid.Int() > math.MaxUint32 {
			return repr.NewText("???"), nil
		}
		return repr.NewText(repr.FormatType(uint32(oid.Int()), int32(mod.Int()), !mod.IsNull())), nil
	case Coalesce:
		for _, a := range c.Args {
			v, err := a.Eval(row)
			if err != nil || !v.IsNull() {
				return v, err
			}
		}
		return repr.Null, nil
	case Greatest, Least:
		best := repr.Null
		for _, a := range c.Args {
			v, err := a.Eval(row)
			if err != nil {
				return repr.Null, err
			}
			if v.IsNull() {
				continue
			}
			if best.IsNull() {
				best = v
				continue
			}
			cmp := sqlCompare(v, best)
			if (c.Func == Greatest && cmp > 0) || (c.Func == Least && cmp < 0) {
				best = v
			}
		}
		return best, nil
	case Now:
		return repr.Null, sqlerr.AssertionFailedf("now() evaluated without a read time")
	case CurrentUser, SessionUser, CurrentDatabase, CurrentSchema, CurrentSetting, SetConfig, BackendPID, PostmasterStartTime,
		CancelBackend, TerminateBackend, NextVal, CurrVal, SetVal, LastVal,
		RelationSize, TableSize, IndexesSize, TotalRelationSize, DatabaseSize:
		return repr.Null, sqlerr.AssertionFailedf("%s evaluated without a session", c.Func.CallName())
	case Random:
		sum, err := keyedHash("random()", c.Args, row)
		if err != nil {
			return repr.Null, err
		}
		// 53 random bits, as a float64 in [0, 1).
		return repr.NewFloat8(float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)), nil
	case SizePretty:
		v, err := c.Args[0].Eval(row)
		if err != nil || v.IsNull() {
			return repr.Null, err
		}
		return repr.NewText(SizePrettyText(v.Int())), nil
	case Concat2:
		var b strings.Builder
		for _, a := range c.Args {
			v, err := a.Eval(row)
			if err != nil {
				return repr.Null, err
			}
			if !v.IsNull() {
				b.WriteString(repr.FormatText(v))
			}
		}
		return repr.NewText(b.String()), nil
	case Round, Substr, BTrim, LTrim, RTrim, Replace, RegexpReplace, StrPos, DatePart, Extract, DateTrunc, EncodingToChar, QuoteIdent, MakeTime:
		args, err := c.strictArgs(row)
		if err != nil || args == nil {
			return repr.Null, err
		}
		switch c.Func {
		case DatePart, Extract:
			return datePart(args[0].Text(), args[1], c.Func == Extract)
		case DateTrunc:
			return dateTrunc(args[0].Text(), args[1])
		case MakeTime:
			return repr.MakeTime(args[0].Int(), args[1].Int(), args[2].Float())
		case EncodingToChar:
			return repr.NewText(encodingName(args[0].Int())), nil
		case QuoteIdent:
			return repr.NewText(quoteIdent(args[0].Text())), nil
		case Round:
			return round(args)
		case Substr:
			return substr(args)
		case Replace:
			if args[1].Text() == "" {
				return args[0], nil
			}
			return repr.NewText(strings.ReplaceAll(args[0].Text(), args[1].Text(), args[2].Text())), nil
		case RegexpReplace:
			flags := ""
			if len(args) > 3 {
				flags = args[3].Text()
			}
			return regexpReplace(args[0].Text(), args[1].Text(), args[2].Text(), flags)
		case StrPos:
			i := strings.Index(args[0].Text(), args[1].Text())
			if i < 0 {
				return repr.NewInt4(0), nil
			}
			return repr.NewInt4(int32(utf8.RuneCountInString(args[0].Text()[:i]) + 1)), nil
		}
		cut := " "
		if len(args) > 1 {
			cut = args[1].Text()
		}
		t := args[0].Text()
		switch c.Func {
		case LTrim:
			t = strings.TrimLeft(t, cut)
		case RTrim:
			t = strings.TrimRight(t, cut)
		default:
			t = strings.Trim(t, cut)
		}
		return repr.NewText(t), nil
	}
	if c.Func.isArray() {
		return c.evalArray(row)
	}
	if c.Func.isString() {
		return c.evalString(row)
	}
	if c.Func.isJSON() {
		return c.evalJSON(row)
	}
	if c.Func.isJSONB() {
		return c.evalJSONB(row)
	}
	if c.Func.isJSONOp() {
		return c.evalJSONOp(row)
	}
	if c.Func.isZone() {
		return c.evalZone(row)
	}
	if c.Func.isTemplate() {
		return c.evalTemplate(row)
	}
	if c.Func.isMath() {
		return c.evalMath(row)
	}
	if c.Func.isBytea() {
		return c.evalBytea(row)
	}
	if c.Func.isStats() {
		return c.evalStats(row)
	}
	return repr.Null, sqlerr.AssertionFailedf("unknown variadic function %d", c.Func)
}

// Eval implements Scalar.
func (c If) Eval(row []repr.Datum) (repr.Datum, error) {
	cond, err := c.Cond.Eval(row)
	if err != nil {
		return repr.Null, err
	}
	if !cond.IsNull() && cond.Bool() {
		return c.Then.Eval(row)
	}
	return c.Else.Eval(row)
}

// Eval implements Scalar.
func (c Cast) Eval(row []repr.Datum) (repr.Datum, error) {
	a, err := c.Arg.Eval(row)
	if err != nil || a.IsNull() {
		return repr.Null, err
	}
	if c.Labels != nil {
		return c.Labels.CastTo(a, c.To)
	}
	return repr.CastIn(a, c.To, c.Zone)
}

// Typ implements Scalar.
func (c Column) Typ(input []ColumnType) ColumnType { return input[c.Index] }

// Typ implements Scalar. A numeric literal's type has the literal's
// display scale, so that 1.50 prints as 1.50 after passing through a row.
func (l Literal) Typ([]ColumnType) ColumnType {
	t := l.Type
	if s, ok := l.Value.NumericScale(); ok && t.IsUnconstrainedNumeric() {
		t = repr.Numeric.WithDisplayScale(s)
	}
	return ColumnType{Type: t, Nullable: l.Value.IsNull()}
}

// Typ implements Scalar.
func (c CallUnary) Typ(input []ColumnType) ColumnType {
	a := c.Arg.Typ(input)
	switch c.Func {
	case Not:
		return ColumnType{Type: repr.Bool, Nullable: a.Nullable}
	case Lower, Upper:
		return ColumnType{Type: repr.Text, Nullable: a.Nullable}
	case Length, OctetLength, ASCII:
		return ColumnType{Type: repr.Int4, Nullable: a.Nullable}
	case Chr:
		return ColumnType{Type: repr.Text, Nullable: a.Nullable}
	case IsNull, IsTrue, IsFalse:
		return ColumnType{Type: repr.Bool}
	case Floor, Ceil:
		// floor and ceil of a numeric have no fractional digits.
		if a.Type.Kind() == repr.KindNumeric {
			a.Type = repr.Numeric
		}
	}
	return a
}

// Typ implements Scalar.
func (c CallBinary) Typ(input []ColumnType) ColumnType {
	l, r := c.Left.Typ(input), c.Right.Typ(input)
	nullable := l.Nullable || r.Nullable
	switch {
	case c.Func == IsDistinctFrom || c.Func == IsNotDistinctFrom:
		return ColumnType{Type: repr.Bool}
	case c.Func.IsComparison() || c.Func == And || c.Func == Or:
		return ColumnType{Type: repr.Bool, Nullable: nullable}
	case c.Func == Concat && l.Type.Kind() == repr.KindBytea && r.Type.Kind() == repr.KindBytea:
		return ColumnType{Type: repr.Bytea, Nullable: nullable}
	case c.Func == Concat:
		return ColumnType{Type: repr.Text, Nullable: nullable}
	case c.Func.isBitwise():
		return ColumnType{Type: l.Type, Nullable: nullable}
	}
	// Arithmetic: the planner casts both operands to the result type,
	// and a numeric result has the display scale PostgreSQL gives it.
	return ColumnType{Type: repr.ArithType(arithOps[c.Func], l.Type, r.Type), Nullable: nullable}
}

// arithOps maps the arithmetic functions to repr's operators.
var arithOps = map[BinaryFunc]repr.ArithOp{
	Add: repr.OpAdd, Sub: repr.OpSub, Mul: repr.OpMul, Div: repr.OpDiv, Mod: repr.OpMod,
}

// Typ implements Scalar.
func (c CallVariadic) Typ(input []ColumnType) ColumnType {
	if c.Func.isArray() {
		return c.arrayTyp(input)
	}
	if c.Func.isString() {
		return c.stringTyp(input)
	}
	if c.Func.isZone() {
		return c.zoneTyp(input)
	}
	if c.Func.isTemplate() {
		return c.templateTyp(input)
	}
	if c.Func.isMath() {
		t := ColumnType{Type: repr.Float8}
		for _, a := range c.Args {
			t.Nullable = t.Nullable || a.Typ(input).Nullable
		}
		return t
	}
	if c.Func.isJSON() {
		nullable := (c.Func == ToJSON || c.Func == JSONAgg) && c.Args[0].Typ(input).Nullable
		return ColumnType{Type: repr.JSON, Nullable: nullable}
	}
	if c.Func.isJSONB() {
		return c.jsonbTyp(input)
	}
	if c.Func.isJSONOp() {
		return c.jsonOpTyp(input)
	}
	if c.Func.isBytea() {
		return c.byteaTyp(input)
	}
	if c.Func.isStats() {
		return c.statsTyp(input)
	}
	t := ColumnType{Nullable: true}
	for i, a := range c.Args {
		at := a.Typ(input)
		if i == 0 {
			t.Type = at.Type
		}
		if c.Func == Coalesce && !at.Nullable {
			t.Nullable = false
		}
	}
	switch c.Func {
	case Coalesce, Greatest, Least:
		t.Type = eitherType(input, c.Args...)
	case Round:
		if t.Type.Kind() == repr.KindNumeric {
			t.Type = repr.Numeric.WithDisplayScale(roundScale(c.Args))
		}
	case Substr, BTrim, LTrim, RTrim, Replace, RegexpReplace:
		t.Type = repr.Text
	case StrPos:
		t.Type = repr.Int4
	case Concat2:
		return ColumnType{Type: repr.Text}
	case Now:
		return ColumnType{Type: repr.TimestampTZ}
	case CurrentUser, SessionUser, CurrentDatabase:
		// PostgreSQL's are of type name, the type of the catalog's
		// identifiers, and drivers read the result column's type.
		return ColumnType{Type: repr.Name}
	case CurrentSchema:
		return ColumnType{Type: repr.Name, Nullable: true}
	case CurrentSetting, SetConfig:
		return ColumnType{Type: repr.Text, Nullable: true}
	case BackendPID:
		return ColumnType{Type: repr.Int4}
	case NextVal, CurrVal, LastVal:
		return ColumnType{Type: repr.Int8}
	case SetVal:
		return ColumnType{Type: repr.Int8, Nullable: true}
	case CancelBackend, TerminateBackend:
		return ColumnType{Type: repr.Bool, Nullable: true}
	case RelationSize, TableSize, IndexesSize, TotalRelationSize, DatabaseSize:
		return ColumnType{Type: repr.Int8, Nullable: true}
	case SizePretty:
		return ColumnType{Type: repr.Text, Nullable: true}
	case Random:
		return ColumnType{Type: repr.Float8}
	case PostmasterStartTime:
		return ColumnType{Type: repr.TimestampTZ}
	case EncodingToChar:
		t.Type = repr.Name
	case QuoteIdent:
		t.Type = repr.Text
	case FormatType:
		return ColumnType{Type: repr.Text, Nullable: true}
	case DatePart:
		t.Type = repr.Float8
	case Extract:
		t.Type = repr.Numeric
		if field, ok := c.Args[0].(Literal); ok && !field.Value.IsNull() {
			t.Type = t.Type.WithDisplayScale(extractScale(field.Value.Text()))
		}
	case DateTrunc:
		if len(c.Args) > 1 {
			t.Type = c.Args[1].Typ(input).Type
			if t.Type.Kind() == repr.KindTime {
				// date_trunc of a time is date_trunc of an interval,
				// through the implicit cast, as in PostgreSQL.
				t.Type = repr.Interval
			}
		}
	case MakeTime:
		t.Type = repr.Time
	}
	if c.Func != Coalesce {
		t.Nullable = true
		for _, a := range c.Args {
			if !a.Typ(input).Nullable {
				t.Nullable = false
			}
		}
	}
	return t
}

// Typ implements Scalar.
func (c If) Typ(input []ColumnType) ColumnType {
	a, b := c.Then.Typ(input), c.Else.Typ(input)
	return ColumnType{Type: eitherType(input, c.Then, c.Else), Nullable: a.Nullable || b.Nullable}
}

// eitherType returns the type of a value that one of alts gives, alts
// of one type as the planner made them: the first one's type, or for
// numerics the display scale that all of them have (repr.EitherType). A
// NULL literal gives no value, so it does not lower the scale.
func eitherType(input []ColumnType, alts ...Scalar) repr.Type {
	first := alts[0].Typ(input).Type
	if first.Kind() != repr.KindNumeric {
		return first
	}
	var t repr.Type
	found := false
	for _, a := range alts {
		if l, ok := a.(Literal); ok && l.Value.IsNull() {
			continue
		}
		if at := a.Typ(input).Type; !found {
			t, found = at, true
		} else {
			t = repr.EitherType(t, at)
		}
	}
	if !found || t.Kind() != repr.KindNumeric {
		return first
	}
	return t
}

// roundScale returns the display scale of round(x) or round(x, n) over
// a numeric: max(n, 0), or 0 where n is not a constant.
func roundScale(args []Scalar) int {
	if len(args) < 2 {
		return 0
	}
	if n, ok := args[1].(Literal); ok && !n.Value.IsNull() && n.Value.Kind().IsInt() {
		return int(max(n.Value.Int(), 0))
	}
	return 0
}

// Typ implements Scalar.
func (c Cast) Typ(input []ColumnType) ColumnType {
	a := c.Arg.Typ(input)
	return ColumnType{Type: repr.CastType(a.Type, c.To), Nullable: a.Nullable}
}

// Columns implements Scalar.
func (c Column) Columns(dst []int) []int { return append(dst, c.Index) }

// Columns implements Scalar.
func (Literal) Columns(dst []int) []int { return dst }

// Columns implements Scalar.
func (c CallUnary) Columns(dst []int) []int { return c.Arg.Columns(dst) }

// Columns implements Scalar.
func (c CallBinary) Columns(dst []int) []int { return c.Right.Columns(c.Left.Columns(dst)) }

// Columns implements Scalar.
func (c CallVariadic) Columns(dst []int) []int {
	for _, a := range c.Args {
		dst = a.Columns(dst)
	}
	return dst
}

// Columns implements Scalar.
func (c If) Columns(dst []int) []int {
	return c.Else.Columns(c.Then.Columns(c.Cond.Columns(dst)))
}

// Columns implements Scalar.
func (c Cast) Columns(dst []int) []int { return c.Arg.Columns(dst) }

func (c Column) String() string { return fmt.Sprintf("#%d", c.Index) }

func (l Literal) String() string {
	if l.Value.IsNull() {
		return "null"
	}
	switch l.Type.Kind() {
	case repr.KindText, repr.KindVarchar, repr.KindBpchar, repr.KindName, repr.KindChar, repr.KindDate, repr.KindTimestamp,
		repr.KindTimestampTZ, repr.KindInterval, repr.KindTime:
		return "'" + strings.ReplaceAll(repr.FormatText(l.Value), "'", "''") + "'"
	}
	return repr.FormatText(l.Value)
}

func (c CallUnary) String() string {
	switch c.Func {
	case IsNull:
		return fmt.Sprintf("(%s IS NULL)", c.Arg)
	case IsTrue:
		return fmt.Sprintf("(%s IS TRUE)", c.Arg)
	case IsFalse:
		return fmt.Sprintf("(%s IS FALSE)", c.Arg)
	case Neg:
		return fmt.Sprintf("-%s", c.Arg)
	}
	return fmt.Sprintf("%s(%s)", c.Func, c.Arg)
}

func (c CallBinary) String() string { return fmt.Sprintf("(%s %s %s)", c.Left, c.Func, c.Right) }

func (c CallVariadic) String() string {
	if c.Func.IsKeyword() {
		return c.Func.String()
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = a.String()
	}
	return fmt.Sprintf("%s(%s)", c.Func, strings.Join(args, ", "))
}

func (c If) String() string {
	return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", c.Cond, c.Then, c.Else)
}

func (c Cast) String() string { return fmt.Sprintf("%s::%s", c.Arg, c.To) }
