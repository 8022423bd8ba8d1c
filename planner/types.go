package planner

import (
	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// PostgreSQL's type resolution for the operators and constructs the
// planner supports (the "Type Conversion" chapter of its manual),
// restricted to the types repr implements.

var binaryOps = map[string]expr.BinaryFunc{
	"+": expr.Add, "-": expr.Sub, "*": expr.Mul, "/": expr.Div, "%": expr.Mod,
	"=": expr.Eq, "<>": expr.NotEq, "!=": expr.NotEq, "<": expr.Lt, "<=": expr.Lte, ">": expr.Gt, ">=": expr.Gte,
	"||": expr.Concat,
	"&":  expr.BitAnd, "|": expr.BitOr, "#": expr.BitXor, "<<": expr.ShiftLeft, ">>": expr.ShiftRight,
}

// unsupportedOps are PostgreSQL operators that expr cannot compute yet.
var unsupportedOps = map[string]bool{
	"^": true, "|/": true, "||/": true, "@": true,
	"~~": true, "~~*": true, "!~~": true, "!~~*": true, "@>": true, "<@": true,
	"&&": true, "->": true, "->>": true, "#>": true, "#>>": true, "?": true,
}

func isArith(f expr.BinaryFunc) bool {
	return f == expr.Add || f == expr.Sub || f == expr.Mul || f == expr.Div || f == expr.Mod
}

// isUnknown reports whether s is a string literal, NULL or parameter
// whose type the context has yet to decide.
func isUnknown(s hscalar) bool { return s.typ().Type.Kind() == repr.KindUnknown }

func typeName(t repr.Type) string { return t.String() }

func errNoOperator(op string, l, r repr.Type) *sqlerr.Error {
	return sqlerr.New(sqlerr.UndefinedFunction, "operator does not exist: %s %s %s", typeName(l), op, typeName(r)).
		WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
}

func errNotUnique(op string, l, r repr.Type) *sqlerr.Error {
	return sqlerr.New(sqlerr.AmbiguousFunction, "operator is not unique: %s %s %s", typeName(l), op, typeName(r)).
		WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
}

// binaryOp resolves and builds `l op r`.
func (b *binder) binaryOp(op string, l, r hscalar) (hscalar, error) {
	if s, ok, err := b.bindJSONBOp(op, l, r); ok || err != nil {
		return s, err
	}
	fn, ok := binaryOps[op]
	if !ok {
		if unsupportedOps[op] {
			return nil, unsupported("operator %s", op)
		}
		return nil, errNoOperator(op, l.typ().Type, r.typ().Type)
	}
	if fn == expr.Concat && (l.typ().Type.IsArray() || r.typ().Type.IsArray()) {
		return b.bindArrayConcat(l, r)
	}
	lu, ru := isUnknown(l), isUnknown(r)
	switch {
	case lu && ru:
		if isArith(fn) {
			return nil, errNotUnique(op, l.typ().Type, r.typ().Type)
		}
		// Comparisons and || of two untyped values resolve as text, the
		// string category's preferred type.
		var err error
		if l, err = b.coerceTo(l, repr.Text); err != nil {
			return nil, err
		}
		if r, err = b.coerceTo(r, repr.Text); err != nil {
			return nil, err
		}
	case lu || ru:
		known := r
		if ru {
			known = l
		}
		target := known.typ().Type.Base()
		if fn == expr.Concat && target.Kind() != repr.KindBytea {
			target = repr.Text
		}
		lt, rt := l.typ().Type, r.typ().Type
		if lu {
			lt = target
		} else {
			rt = target
		}
		if _, _, _, err := resolveBinary(fn, op, lt, rt); err != nil {
			// The unknown side could have been some other type: PostgreSQL
			// finds no unique candidate rather than none.
			if lu {
				return nil, errNotUnique(op, l.typ().Type, rt)
			}
			return nil, errNotUnique(op, lt, r.typ().Type)
		}
		var err error
		if lu {
			l, err = b.coerceTo(l, target)
		} else {
			r, err = b.coerceTo(r, target)
		}
		if err != nil {
			return nil, err
		}
	}
	lt, rt, res, err := resolveBinary(fn, op, l.typ().Type, r.typ().Type)
	if err != nil {
		return nil, err
	}
	if fn == expr.Concat {
		// || takes any type beside text, through its output function.
		if l, err = b.explicitCast(l, lt); err != nil {
			return nil, err
		}
		if r, err = b.explicitCast(r, rt); err != nil {
			return nil, err
		}
		return hBinary{fn: fn, left: l, right: r, t: expr.ColumnType{Type: res, Nullable: l.typ().Nullable || r.typ().Nullable}}, nil
	}
	if l, err = b.coerceTo(l, lt); err != nil {
		return nil, err
	}
	if r, err = b.coerceTo(r, rt); err != nil {
		return nil, err
	}
	if fn == expr.Add || fn == expr.Sub {
		ts, iv := l, r
		if fn == expr.Add && r.typ().Type.Kind() == repr.KindTimestampTZ {
			ts, iv = r, l
		}
		if z := b.zonedIntervalArith(op, ts, iv); z != nil {
			return z, nil
		}
	}
	nullable := l.typ().Nullable || r.typ().Nullable
	if fn == expr.IsDistinctFrom || fn == expr.IsNotDistinctFrom {
		nullable = false
	}
	return hBinary{fn: fn, left: l, right: r, t: expr.ColumnType{Type: res, Nullable: nullable}}, nil
}

// numericRank orders the numeric kinds for promotion.
var numericRank = map[repr.Kind]int{
	repr.KindInt2: 1, repr.KindInt4: 2, repr.KindInt8: 3, repr.KindNumeric: 4, repr.KindFloat4: 5, repr.KindFloat8: 6,
}

// commonNumeric is the type two numeric operands are computed in: the
// wider integer, numeric over integers, float8 over anything but two
// float4s.
func commonNumeric(a, b repr.Kind) repr.Type {
	switch {
	case a.IsInt() && b.IsInt():
		if numericRank[a] >= numericRank[b] {
			return a.Type()
		}
		return b.Type()
	case a == repr.KindFloat4 && b == repr.KindFloat4:
		return repr.Float4
	case a.IsFloat() || b.IsFloat():
		return repr.Float8
	}
	return repr.Numeric
}

func isNumeric(k repr.Kind) bool { return numericRank[k] > 0 }

func isDateTime(k repr.Kind) bool {
	return k == repr.KindDate || k == repr.KindTimestamp || k == repr.KindTimestampTZ
}

// timeRank orders date < timestamp < timestamptz, the direction of their
// implicit casts.
func timeRank(k repr.Kind) int {
	switch k {
	case repr.KindDate:
		return 1
	case repr.KindTimestamp:
		return 2
	}
	return 3
}

// resolveBinary returns the types the operands of `l op r` are cast to
// and the result type, for known operand types.
func resolveBinary(fn expr.BinaryFunc, op string, l, r repr.Type) (lt, rt, res repr.Type, err error) {
	lk, rk := l.Kind(), r.Kind()
	switch {
	case fn == expr.Concat:
		if lk == repr.KindBytea && rk == repr.KindBytea {
			return repr.Bytea, repr.Bytea, repr.Bytea, nil
		}
		if lk.IsString() || rk.IsString() {
			return repr.Text, repr.Text, repr.Text, nil
		}
	case fn == expr.ShiftLeft || fn == expr.ShiftRight:
		if lk.IsInt() && rk.IsInt() {
			return l.Base(), repr.Int4, l.Base(), nil
		}
	case fn == expr.BitAnd || fn == expr.BitOr || fn == expr.BitXor:
		if lk.IsInt() && rk.IsInt() {
			c := commonNumeric(lk, rk)
			return c, c, c, nil
		}
	case isArith(fn):
		if lk == repr.KindTime || rk == repr.KindTime {
			return resolveTimeArith(fn, op, l, r)
		}
		switch {
		case isNumeric(lk) && isNumeric(rk):
			c := commonNumeric(lk, rk)
			if fn == expr.Mod && c.Kind().IsFloat() {
				break
			}
			return c, c, c, nil
		case lk == repr.KindDate && (lk == rk) && fn == expr.Sub:
			return repr.Date, repr.Date, repr.Int4, nil
		case lk == repr.KindDate && (rk == repr.KindInt2 || rk == repr.KindInt4) && (fn == expr.Add || fn == expr.Sub):
			return repr.Date, repr.Int4, repr.Date, nil
		case (lk == repr.KindInt2 || lk == repr.KindInt4) && rk == repr.KindDate && fn == expr.Add:
			return repr.Int4, repr.Date, repr.Date, nil
		case lk == repr.KindInterval && isNumeric(rk) && (fn == expr.Mul || fn == expr.Div):
			return repr.Interval, repr.Float8, repr.Interval, nil
		case isNumeric(lk) && rk == repr.KindInterval && fn == expr.Mul:
			return repr.Float8, repr.Interval, repr.Interval, nil
		case isDateTime(lk) && rk == repr.KindInterval && (fn == expr.Add || fn == expr.Sub):
			t := lk.Type()
			if lk == repr.KindDate {
				t = repr.Timestamp
			}
			return t, repr.Interval, t, nil
		case lk == repr.KindInterval && isDateTime(rk) && fn == expr.Add:
			t := rk.Type()
			if rk == repr.KindDate {
				t = repr.Timestamp
			}
			return repr.Interval, t, t, nil
		case isDateTime(lk) && isDateTime(rk) && fn == expr.Sub:
			t := lk.Type()
			if timeRank(rk) > timeRank(lk) {
				t = rk.Type()
			}
			if t.Kind() == repr.KindDate {
				t = repr.Timestamp
			}
			return t, t, repr.Interval, nil
		case lk == repr.KindInterval && rk == repr.KindInterval && (fn == expr.Add || fn == expr.Sub):
			return repr.Interval, repr.Interval, repr.Interval, nil
		}
	default: // comparison
		var t repr.Type
		switch {
		case isNumeric(lk) && isNumeric(rk):
			t = commonNumeric(lk, rk)
		case lk.IsString() && rk.IsString():
			t = repr.Text
			if lk == rk {
				t = lk.Type()
			}
		case isDateTime(lk) && isDateTime(rk):
			t = lk.Type()
			if timeRank(rk) > timeRank(lk) {
				t = rk.Type()
			}
		case lk == repr.KindEnum && rk == repr.KindEnum && l.EnumOID() == r.EnumOID():
			t = l.Base()
		case lk == rk && (lk == repr.KindBool || lk == repr.KindInterval || lk == repr.KindTime || lk.IsOIDKind() || lk == repr.KindUUID || lk == repr.KindBytea || lk == repr.KindJSONB):
			t = lk.Type()
		case (lk.IsOIDKind() || lk.IsInt()) && (rk.IsOIDKind() || rk.IsInt()):
			// An OID against an integer or another kind of OID
			// compares as oid.
			t = repr.OID
		case lk == repr.KindArray && rk == repr.KindArray:
			// Arrays compare element by element, in the elements'
			// common type.
			et, _, _, err := resolveBinary(fn, op, l.Elem(), r.Elem())
			if err != nil {
				return l, r, l, errNoOperator(op, l, r)
			}
			t = repr.ArrayOf(et)
		default:
			return l, r, l, errNoOperator(op, l, r)
		}
		return t, t, repr.Bool, nil
	}
	return l, r, l, errNoOperator(op, l, r)
}

// resolveTimeArith resolves arithmetic with a time operand: PostgreSQL's
// operators on time (time ± interval, interval + time, time - time,
// date ± time and time + date), and otherwise the operators of interval,
// which time casts to implicitly (timestamp + time, time * 2). time +
// time could be either, so it is ambiguous, as in PostgreSQL.
func resolveTimeArith(fn expr.BinaryFunc, op string, l, r repr.Type) (lt, rt, res repr.Type, err error) {
	lk, rk := l.Kind(), r.Kind()
	add, sub := fn == expr.Add, fn == expr.Sub
	switch {
	case lk == repr.KindTime && rk == repr.KindInterval && (add || sub):
		return repr.Time, repr.Interval, repr.Time, nil
	case lk == repr.KindInterval && rk == repr.KindTime && add:
		return repr.Interval, repr.Time, repr.Time, nil
	case lk == repr.KindTime && rk == repr.KindTime && sub:
		return repr.Time, repr.Time, repr.Interval, nil
	case lk == repr.KindTime && rk == repr.KindTime && add:
		return l, r, l, errNotUnique(op, l, r)
	case lk == repr.KindDate && rk == repr.KindTime && (add || sub):
		return repr.Date, repr.Time, repr.Timestamp, nil
	case lk == repr.KindTime && rk == repr.KindDate && add:
		return repr.Time, repr.Date, repr.Timestamp, nil
	}
	asInterval := func(t repr.Type) repr.Type {
		if t.Kind() == repr.KindTime {
			return repr.Interval
		}
		return t
	}
	lt, rt, res, err = resolveBinary(fn, op, asInterval(l), asInterval(r))
	if err != nil {
		return l, r, l, errNoOperator(op, l, r)
	}
	return lt, rt, res, nil
}

// coerceTo converts s to type t implicitly, as an operator's operand or a
// construct's input: an untyped literal is read as t, an untyped
// parameter takes type t, and otherwise an implicit cast must exist.
func (b *binder) coerceTo(s hscalar, t repr.Type) (hscalar, error) {
	out, ok, err := b.coerce(s, t, repr.CastImplicit)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, sqlerr.New(sqlerr.DatatypeMismatch, "cannot convert type %s to %s implicitly", typeName(s.typ().Type), typeName(t))
	}
	return out, nil
}

// coerce converts s to type t if a cast is allowed in context ctx, and
// reports whether one was.
func (b *binder) coerce(s hscalar, t repr.Type, ctx repr.CastContext) (hscalar, bool, error) {
	from := s.typ().Type
	if from.Kind() == repr.KindUnknown {
		switch s := s.(type) {
		case hLiteral:
			if s.v.IsNull() {
				return hLiteral{v: repr.Null, t: t}, true, nil
			}
			d, err := b.parseLiteral(t, s.v.Text())
			if err != nil {
				return nil, false, err
			}
			return hLiteral{v: d, t: t}, true, nil
		case hParam:
			// The parameter takes the base type; a modifier (varchar(3)
			// of a column) is a cast in this context. An enum's (or an
			// enum array's) is read at Bind with the labels of the
			// statement's planning, as PostgreSQL types it.
			b.setParamType(s.n, t.Base())
			p := hParam{n: s.n, t: t.Base()}
			if t == t.Base() {
				return p, true, nil
			}
			return hCast{arg: p, to: t, assign: ctx == repr.CastAssignment, zone: b.zone()}, true, nil
		}
	}
	if from == t {
		return s, true, nil
	}
	if from.Base() == t.Base() && t == t.Base() {
		// Dropping a modifier (varchar(10) to varchar) changes no value.
		return s, true, nil
	}
	if repr.TypeCastContext(from, t) < ctx {
		return nil, false, nil
	}
	if isRegKind(from.Kind()) && t.Kind().IsString() {
		s, err := b.regText(s)
		if err != nil {
			return nil, false, err
		}
		return b.coerce(s, t, ctx)
	}
	if t.EnumOID() != 0 {
		return b.enumCastOK(s, t, ctx == repr.CastAssignment)
	}
	return hCast{arg: s, to: t, assign: ctx == repr.CastAssignment, zone: b.zone()}, true, nil
}

// enumCastOK is enumCast for coerce.
func (b *binder) enumCastOK(s hscalar, t repr.Type, assign bool) (hscalar, bool, error) {
	c, err := b.enumCast(s, t, assign)
	return c, err == nil, err
}

// explicitCast builds CAST(s AS t).
func (b *binder) explicitCast(s hscalar, t repr.Type) (hscalar, error) {
	from := s.typ().Type
	if from.Kind() != repr.KindUnknown && repr.TypeCastContext(from, t) < repr.CastExplicit {
		return nil, sqlerr.New(sqlerr.CannotCoerce, "cannot cast type %s to %s", typeName(from), typeName(t))
	}
	if l, ok := s.(hLiteral); ok && from.Kind() == repr.KindUnknown {
		if l.v.IsNull() {
			return hLiteral{v: repr.Null, t: t}, nil
		}
		// The literal is read as the type, then cast to its modifiers
		// as an explicit cast does: 'abcdef'::varchar(3) is 'abc'.
		d, err := b.parseLiteral(t.Base(), l.v.Text())
		if err == nil {
			d, err = repr.CastIn(d, t, b.zone())
		}
		if err != nil {
			return nil, err
		}
		return hLiteral{v: d, t: t}, nil
	}
	if p, ok := s.(hParam); ok && from.Kind() == repr.KindUnknown {
		b.setParamType(p.n, t)
		return hParam{n: p.n, t: t}, nil
	}
	if from == t {
		return s, nil
	}
	if isRegKind(from.Kind()) && t.Kind().IsString() {
		text, err := b.regText(s)
		if err != nil {
			return nil, err
		}
		return b.explicitCast(text, t)
	}
	if isRegKind(t.Kind()) && from.Kind().IsString() {
		return b.regFromText(s, t)
	}
	if t.EnumOID() != 0 {
		return b.enumCast(s, t, false)
	}
	return hCast{arg: s, to: t, zone: b.zone()}, nil
}

// coerceBool requires s to be boolean, as the argument of clause (AND,
// WHERE, ...).
func (b *binder) coerceBool(s hscalar, clause string) (hscalar, error) {
	t := s.typ().Type
	if t.Kind() == repr.KindBool {
		return s, nil
	}
	if t.Kind() == repr.KindUnknown {
		return b.coerceTo(s, repr.Bool)
	}
	return nil, sqlerr.New(sqlerr.DatatypeMismatch, "argument of %s must be type boolean, not type %s", clause, typeName(t))
}

// unifyTypes picks the type that the inputs of a CASE, COALESCE, VALUES
// column or set operation resolve to (PostgreSQL's select_common_type):
// text if all are unknown; else the known types must share a category,
// and the first preferred type wins, or else the last type that all the
// earlier ones cast to implicitly.
func unifyTypes(ts []repr.Type, context string) (repr.Type, error) {
	var res repr.Type
	found := false
	for _, t := range ts {
		if t.Kind() == repr.KindUnknown {
			continue
		}
		if !found {
			res, found = t, true
			continue
		}
		if t == res {
			continue
		}
		if t.Base() == res.Base() {
			res = res.Base()
			continue
		}
		if t.Category() != res.Category() {
			return repr.Type{}, sqlerr.New(sqlerr.DatatypeMismatch, "%s types %s and %s cannot be matched", context, typeName(res), typeName(t))
		}
		if !res.Preferred() && repr.TypeCastContext(res, t) == repr.CastImplicit &&
			repr.TypeCastContext(t, res) != repr.CastImplicit {
			res = t
		}
	}
	if !found {
		return repr.Text, nil
	}
	return res, nil
}

// unify casts every scalar to the type unifyTypes picks for them.
func (b *binder) unify(ss []hscalar, context string) ([]hscalar, repr.Type, error) {
	ts := make([]repr.Type, len(ss))
	for i, s := range ss {
		ts[i] = s.typ().Type
	}
	t, err := unifyTypes(ts, context)
	if err != nil {
		return nil, t, err
	}
	out := make([]hscalar, len(ss))
	for i, s := range ss {
		c, ok, err := b.coerce(s, t, repr.CastImplicit)
		if err != nil {
			return nil, t, err
		}
		if !ok {
			return nil, t, sqlerr.New(sqlerr.DatatypeMismatch, "%s could not convert type %s to %s", context, typeName(s.typ().Type), typeName(t))
		}
		out[i] = c
	}
	return out, t, nil
}
