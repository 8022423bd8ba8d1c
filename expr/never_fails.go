package expr

// NeverFails reports whether evaluating s can raise no error, whatever
// the row, as far as can be told from its shape: columns, literals, the
// comparisons (LIKE and regular expressions aside: a pattern can be
// malformed), AND, OR, NOT, IS NULL, IS TRUE, IS FALSE and CASE over
// such scalars. It answers false for anything else, which may fail or
// not.
func NeverFails(s Scalar) bool {
	switch n := s.(type) {
	case Column, Literal:
		return true
	case CallUnary:
		switch n.Func {
		case Not, IsNull, IsTrue, IsFalse:
			return NeverFails(n.Arg)
		}
	case CallBinary:
		switch n.Func {
		case Eq, NotEq, Lt, Lte, Gt, Gte, IsDistinctFrom, IsNotDistinctFrom, And, Or:
			return NeverFails(n.Left) && NeverFails(n.Right)
		}
	case If:
		return NeverFails(n.Cond) && NeverFails(n.Then) && NeverFails(n.Else)
	}
	return false
}
