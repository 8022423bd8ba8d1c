package planner

import (
	"freshet/expr"
	"freshet/repr"
)

// The HIR rewrites run after binding and before lowering, in this order,
// each once over the whole plan (subqueries included). Each returns
// whether it changed anything, which tests show.
var hirRules = []struct {
	name  string
	apply func(hrel) (hrel, bool)
}{
	// SplitSubqueryPredicates splits WHERE conjuncts and puts those
	// without subqueries first, so that a subquery is lowered under a
	// domain that is already filtered (research §3.1).
	{"SplitSubqueryPredicates", splitSubqueryPredicates},
	// SimplifyQuantified turns `x op ANY (S)` in a WHERE conjunct into
	// EXISTS (S WHERE x op y) and `x op ALL (S)` into NOT EXISTS (S WHERE
	// (x op y) IS NOT TRUE), a semijoin and an antijoin: in WHERE, NULL
	// and FALSE both drop the row, so the NULL cases need not be told
	// apart (research §3.1).
	{"SimplifyQuantified", simplifyQuantified},
	// SimplifyNotIn turns `NOT (x op ANY (S))` in a WHERE conjunct, the
	// NOT IN of SQL, into an antijoin on the matches plus a check that
	// no NULL makes the answer unknown (research §4.2); never into a
	// plain antijoin, which would keep rows that NOT IN drops.
	{"SimplifyNotIn", simplifyNotIn},
	// ExpandQuantified expands every remaining ANY and ALL into the CASE
	// of research §3.3 over EXISTS subqueries, which lowering handles
	// with equijoins and per-key existence only.
	{"ExpandQuantified", expandQuantified},
	// PushPlainPredicates moves the predicates without subqueries of a
	// filter below the projections, maps and filters under it, ahead of
	// any subquery predicate there. The EXISTS subqueries the rules above
	// build put their correlating comparison (x = y) in a filter over the
	// subquery's own plan; pushed down, it meets the subquery's tables
	// before any subquery nested in them is lowered, so the domain is
	// joined on it instead of crossed with the tables (research §3.1).
	{"PushPlainPredicates", pushPlainPredicates},
}

// rewriteHIR applies the HIR rules and returns the names of those that
// fired.
func rewriteHIR(r hrel) (hrel, []string) {
	var fired []string
	for _, rule := range hirRules {
		var changed bool
		if r, changed = rule.apply(r); changed {
			fired = append(fired, rule.name)
		}
	}
	return r, fired
}

// transformHIR rebuilds r bottom-up: fs is applied to every scalar after
// its operands and subqueries, fr to every relation after its inputs
// and scalars.
func transformHIR(r hrel, fr func(hrel) hrel, fs func(hscalar) hscalar) hrel {
	ins := relChildren(r)
	nins := make([]hrel, len(ins))
	for i, in := range ins {
		nins[i] = transformHIR(in, fr, fs)
	}
	ss := relScalars(r)
	nss := make([]hscalar, len(ss))
	for i, s := range ss {
		nss[i] = transformHIRScalar(s, fr, fs)
	}
	r = withRelParts(r, nins, nss)
	if fr != nil {
		r = fr(r)
	}
	return r
}

func transformHIRScalar(s hscalar, fr func(hrel) hrel, fs func(hscalar) hscalar) hscalar {
	if rel := subqueryOf(s); rel != nil {
		s = withSubquery(s, transformHIR(rel, fr, fs))
	}
	if cs := scalarChildren(s); len(cs) > 0 {
		ncs := make([]hscalar, len(cs))
		for i, c := range cs {
			ncs[i] = transformHIRScalar(c, fr, fs)
		}
		s = withScalarChildren(s, ncs)
	}
	if fs != nil {
		s = fs(s)
	}
	return s
}

// filterRule applies f to the predicate list of every Filter.
func filterRule(r hrel, f func([]hscalar) ([]hscalar, bool)) (hrel, bool) {
	changed := false
	out := transformHIR(r, func(r hrel) hrel {
		fl, ok := r.(hFilter)
		if !ok {
			return r
		}
		preds, c := f(fl.preds)
		if !c {
			return r
		}
		changed = true
		return hFilter{input: fl.input, preds: preds}
	}, nil)
	return out, changed
}

func splitSubqueryPredicates(r hrel) (hrel, bool) {
	return filterRule(r, func(preds []hscalar) ([]hscalar, bool) {
		var all []hscalar
		for _, p := range preds {
			all = append(all, conjuncts(p)...)
		}
		plain, subs := splitPlain(all)
		out := append(plain, subs...)
		if len(out) == len(preds) {
			same := true
			for i := range out {
				if !equalScalars(out[i], preds[i]) {
					same = false
				}
			}
			if same {
				return preds, false
			}
		}
		return out, true
	})
}

var boolType = expr.ColumnType{Type: repr.Bool, Nullable: true}

func hNot(s hscalar) hscalar {
	return hUnary{fn: expr.Not, arg: s, t: expr.ColumnType{Type: repr.Bool, Nullable: s.typ().Nullable}}
}

func hIsNull(s hscalar) hscalar {
	return hUnary{fn: expr.IsNull, arg: s, t: expr.ColumnType{Type: repr.Bool}}
}

func hBool(v bool) hscalar { return hLiteral{v: repr.NewBool(v), t: repr.Bool} }

func hLogic(fn expr.BinaryFunc, l, r hscalar) hscalar {
	if l == nil {
		return r
	}
	if r == nil {
		return l
	}
	return hBinary{fn: fn, left: l, right: r, t: expr.ColumnType{Type: repr.Bool, Nullable: l.typ().Nullable || r.typ().Nullable}}
}

func hCase(cond, then, els hscalar) hscalar {
	return hIf{cond: cond, then: then, els: els, t: boolType}
}

// quantifiedParts returns, for `x op ANY/ALL (S)`, the comparison x op y
// as a predicate over S's column y, and the relation S.
func quantifiedParts(q hQuantified) (cmp hscalar, y hColumn) {
	y = hColumn{level: 0, index: 0, t: q.rel.types()[0]}
	cmp = hBinary{fn: q.op, left: lift(q.left), right: y,
		t: expr.ColumnType{Type: repr.Bool, Nullable: q.left.typ().Nullable || y.t.Nullable}}
	return cmp, y
}

func existsWhere(rel hrel, pred hscalar) hscalar {
	return hExists{rel: hFilter{input: rel, preds: []hscalar{pred}}}
}

func simplifyQuantified(r hrel) (hrel, bool) {
	return filterRule(r, func(preds []hscalar) ([]hscalar, bool) {
		changed := false
		out := make([]hscalar, len(preds))
		for i, p := range preds {
			out[i] = p
			q, ok := p.(hQuantified)
			if !ok {
				continue
			}
			changed = true
			cmp, _ := quantifiedParts(q)
			if q.all {
				isTrue := hUnary{fn: expr.IsTrue, arg: cmp, t: expr.ColumnType{Type: repr.Bool}}
				out[i] = hNot(existsWhere(q.rel, hNot(isTrue)))
			} else {
				out[i] = existsWhere(q.rel, cmp)
			}
		}
		return out, changed
	})
}

func simplifyNotIn(r hrel) (hrel, bool) {
	return filterRule(r, func(preds []hscalar) ([]hscalar, bool) {
		changed := false
		var out []hscalar
		for _, p := range preds {
			n, ok := p.(hUnary)
			q, isQ := hQuantified{}, false
			if ok && n.fn == expr.Not {
				q, isQ = n.arg.(hQuantified)
			}
			if !isQ || q.all {
				out = append(out, p)
				continue
			}
			changed = true
			// NOT (x IN S) is TRUE exactly when no y matches, and S is
			// empty or neither x nor any y is NULL.
			cmp, y := quantifiedParts(q)
			out = append(out, hNot(existsWhere(q.rel, cmp)))
			if unknown := nullCase(q, y); unknown != nil {
				out = append(out, hLogic(expr.Or, hNot(hExists{rel: q.rel}), hNot(unknown)))
			}
		}
		return out, changed
	})
}

// nullCase is the condition under which a comparison of x with a
// non-empty S can be NULL: x IS NULL OR EXISTS (S WHERE y IS NULL),
// without the parts that the types rule out; nil if none remain.
func nullCase(q hQuantified, y hColumn) hscalar {
	var c hscalar
	if q.left.typ().Nullable {
		c = hIsNull(q.left)
	}
	if y.t.Nullable {
		c = hLogic(expr.Or, c, existsWhere(q.rel, hIsNull(y)))
	}
	return c
}

func expandQuantified(r hrel) (hrel, bool) {
	changed := false
	out := transformHIR(r, nil, func(s hscalar) hscalar {
		q, ok := s.(hQuantified)
		if !ok {
			return s
		}
		changed = true
		cmp, y := quantifiedParts(q)
		unknown := nullCase(q, y)
		nonEmpty := hExists{rel: q.rel}
		if !q.all {
			// TRUE if some y matches; FALSE if S is empty; NULL if x or
			// some y is NULL; else FALSE.
			match := existsWhere(q.rel, cmp)
			if unknown == nil {
				return match
			}
			return hCase(match, hBool(true),
				hCase(hNot(nonEmpty), hBool(false),
					hCase(unknown, hLiteral{v: repr.Null, t: repr.Bool}, hBool(false))))
		}
		// TRUE if S is empty; FALSE if some comparison is FALSE; NULL if
		// x or some y is NULL; else TRUE.
		isFalse := hUnary{fn: expr.IsFalse, arg: cmp, t: expr.ColumnType{Type: repr.Bool}}
		refuted := existsWhere(q.rel, isFalse)
		if unknown == nil {
			return hNot(refuted)
		}
		return hCase(hNot(nonEmpty), hBool(true),
			hCase(refuted, hBool(false),
				hCase(unknown, hLiteral{v: repr.Null, t: repr.Bool}, hBool(true))))
	})
	return out, changed
}

func pushPlainPredicates(r hrel) (hrel, bool) {
	changed := false
	out := transformHIR(r, func(r hrel) hrel {
		f, ok := r.(hFilter)
		if !ok {
			return r
		}
		plain, subs := splitPlain(f.preds)
		in, pushed := pushPlain(f.input, plain)
		if !pushed {
			return r
		}
		changed = true
		if len(subs) == 0 {
			return in
		}
		return hFilter{input: in, preds: subs}
	}, nil)
	return out, changed
}

// splitPlain splits predicates into those without subqueries and those
// with, each in order.
func splitPlain(preds []hscalar) (plain, subs []hscalar) {
	for _, p := range preds {
		if hasSubquery(p) {
			subs = append(subs, p)
		} else {
			plain = append(plain, p)
		}
	}
	return plain, subs
}

// pushPlain filters r by preds (which have no subqueries), as far down
// through projections, maps and filters as they can go. It reports
// false, and returns r unchanged, when they cannot move below r.
func pushPlain(r hrel, preds []hscalar) (hrel, bool) {
	if len(preds) == 0 {
		return r, false
	}
	switch in := r.(type) {
	case hProject:
		moved := make([]hscalar, len(preds))
		for i, p := range preds {
			m, err := mapScalarRefs(p, 0, func(c hColumn, depth int) (hscalar, error) {
				if c.level == depth {
					c.index = in.outputs[c.index]
				}
				return c, nil
			})
			if err != nil {
				return r, false
			}
			moved[i] = m
		}
		below, ok := pushPlain(in.input, moved)
		if !ok {
			below = hFilter{input: in.input, preds: moved}
		}
		return hProject{input: below, outputs: in.outputs}, true
	case hMap:
		n := len(in.input.types())
		var down, stay []hscalar
		for _, p := range preds {
			if readsFrom(p, n) {
				stay = append(stay, p)
			} else {
				down = append(down, p)
			}
		}
		if len(down) == 0 {
			return r, false
		}
		below, ok := pushPlain(in.input, down)
		if !ok {
			below = hFilter{input: in.input, preds: down}
		}
		var out hrel = hMap{input: below, scalars: in.scalars}
		if len(stay) > 0 {
			out = hFilter{input: out, preds: stay}
		}
		return out, true
	case hFilter:
		plain, subs := splitPlain(in.preds)
		all := append(plain, preds...)
		below, ok := pushPlain(in.input, all)
		if !ok {
			below = hFilter{input: in.input, preds: all}
		}
		if len(subs) == 0 {
			return below, true
		}
		return hFilter{input: below, preds: subs}, true
	}
	return r, false
}

// readsFrom reports whether s reads a column of its own query at index
// n or above.
func readsFrom(s hscalar, n int) bool {
	found := false
	_, _ = mapScalarRefs(s, 0, func(c hColumn, depth int) (hscalar, error) {
		if c.level == depth && c.index >= n {
			found = true
		}
		return c, nil
	})
	return found
}
