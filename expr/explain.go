package expr

import (
	"fmt"
	"strings"
)

// Explain renders a plan as an indented tree, one operator a line, inputs
// below their consumer: the text of EXPLAIN and of planner test files.
func Explain(r Relation) string {
	var b strings.Builder
	explain(&b, r, 0)
	return b.String()
}

func explain(b *strings.Builder, r Relation, depth int) {
	b.WriteString(strings.Repeat("  ", depth))
	switch n := r.(type) {
	case Constant:
		fmt.Fprintf(b, "Constant (%d rows)", len(n.Rows))
		for _, row := range n.Rows {
			fmt.Fprintf(b, " %s", formatRow(row))
		}
	case Get:
		fmt.Fprintf(b, "Get %s", n.ID)
		if n.Name != "" {
			fmt.Fprintf(b, " (%s)", n.Name)
		}
	case LocalGet:
		fmt.Fprintf(b, "Get %s", n.ID)
	case Let:
		fmt.Fprintf(b, "Let %s =\n", n.ID)
		explain(b, n.Value, depth+1)
		b.WriteString(strings.Repeat("  ", depth) + "in\n")
		explain(b, n.Body, depth+1)
		return
	case Recursive:
		kind := "UNION ALL"
		if n.Distinct {
			kind = "UNION"
		}
		fmt.Fprintf(b, "Recursive %s (%s) =\n", n.ID, kind)
		explain(b, n.Base, depth+1)
		b.WriteString(strings.Repeat("  ", depth) + "then, over the last round,\n")
		explain(b, n.Step, depth+1)
		return
	case Map:
		fmt.Fprintf(b, "Map %s", scalars(n.Scalars))
	case Filter:
		fmt.Fprintf(b, "Filter %s", scalars(n.Predicates))
	case Project:
		cols := make([]string, len(n.Outputs))
		for i, c := range n.Outputs {
			cols[i] = fmt.Sprintf("#%d", c)
		}
		fmt.Fprintf(b, "Project (%s)", strings.Join(cols, ", "))
	case FlatMap:
		fmt.Fprintf(b, "FlatMap %s(%s)", n.Func, scalars(n.Args))
	case Join:
		classes := make([]string, len(n.Equivalences))
		for i, c := range n.Equivalences {
			classes[i] = "(" + strings.Join(strs(c), " = ") + ")"
		}
		fmt.Fprintf(b, "Join on=%s", strings.Join(classes, " AND "))
	case Reduce:
		aggs := make([]string, len(n.Aggregates))
		for i, a := range n.Aggregates {
			d := ""
			if a.Distinct {
				d = "distinct "
			}
			ord := ""
			for j, o := range a.Order {
				if j == 0 {
					ord = " order_by "
				} else {
					ord += ", "
				}
				ord += o.Expr.String()
				if o.Desc {
					ord += " desc"
				}
			}
			filter := ""
			if a.Filter != nil {
				filter = " filter " + a.Filter.String()
			}
			if a.Func == StringAgg {
				aggs[i] = fmt.Sprintf("%s(%s%s, %q%s)%s", a.Func, d, a.Expr, a.Delimiter, ord, filter)
				continue
			}
			aggs[i] = fmt.Sprintf("%s(%s%s%s)%s", a.Func, d, a.Expr, ord, filter)
		}
		fmt.Fprintf(b, "Reduce group_by=[%s] aggregates=[%s]", scalars(n.GroupKey), strings.Join(aggs, ", "))
	case TopK:
		ord := orderStrings(n.Order)
		fmt.Fprintf(b, "TopK group_by=%v order_by=[%s] limit=%d offset=%d", n.GroupKey, strings.Join(ord, ", "), n.Limit, n.Offset)
	case Window:
		ord := orderStrings(n.Order)
		fns := make([]string, len(n.Funcs))
		for i, f := range n.Funcs {
			fns[i] = f.String()
		}
		fmt.Fprintf(b, "Window partition_by=%v order_by=[%s] funcs=[%s]", n.PartitionBy, strings.Join(ord, ", "), strings.Join(fns, ", "))
	case Distinct:
		b.WriteString("Distinct")
	case Negate:
		b.WriteString("Negate")
	case Threshold:
		b.WriteString("Threshold")
	case Union:
		b.WriteString("Union")
	default:
		fmt.Fprintf(b, "%T", r)
	}
	b.WriteString("\n")
	for _, c := range r.Children() {
		explain(b, c, depth+1)
	}
}

func strs(ss []Scalar) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.String()
	}
	return out
}

func scalars(ss []Scalar) string { return strings.Join(strs(ss), ", ") }

func formatRow(r Row) string {
	vals := make([]string, len(r.Datums))
	for i, d := range r.Datums {
		vals[i] = Literal{Value: d}.String()
		if d.IsNull() {
			vals[i] = "null"
		}
	}
	s := "(" + strings.Join(vals, ", ") + ")"
	if r.Diff != 1 {
		s += fmt.Sprintf("×%d", r.Diff)
	}
	return s
}

// orderStrings prints a sort order's columns: #3 desc nulls_first.
func orderStrings(order []ColumnOrder) []string {
	ord := make([]string, len(order))
	for i, o := range order {
		ord[i] = fmt.Sprintf("#%d", o.Column)
		if o.Desc {
			ord[i] += " desc"
		}
		if o.NullsFirst {
			ord[i] += " nulls_first"
		}
	}
	return ord
}
