package planner

import (
	"strings"
	"testing"

	"freshet/sqlerr"
)

// TestSharedOperandsBounded plans statements that nest, 40 deep, an
// operand that binding shares between comparisons: counted as a tree
// the plan has about 2^40 nodes, and planning it would never end. Each
// is refused with 54001 once the count passes MaxPlanNodes.
func TestSharedOperandsBounded(t *testing.T) {
	cat := newTestCatalog(t)
	const n = 40
	for _, tt := range []struct{ name, sql string }{
		{"nullif", "SELECT " + strings.Repeat("nullif(", n) + "k" + strings.Repeat(", 2)", n) + " FROM t"},
		{"nullif-constant", "SELECT " + strings.Repeat("nullif(", n) + "1" + strings.Repeat(", 2)", n)},
		{"between", "SELECT " + strings.Repeat("(", n) + "k" + strings.Repeat(" BETWEEN 0 AND 2)::int", n) + " FROM t"},
		{"between-symmetric", "SELECT " + strings.Repeat("(", n) + "k" + strings.Repeat(" BETWEEN SYMMETRIC 0 AND 2)::int", n) + " FROM t"},
		{"in-list", "SELECT " + strings.Repeat("(", n) + "k" + strings.Repeat(" IN (1, 2))::int", n) + " FROM t"},
		{"in-where", "SELECT 1 FROM t WHERE " + strings.Repeat("(", n) + "k" + strings.Repeat(" IN (1, 2))::int", n) + " = 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Plan(cat, tt.sql)
			if sqlerr.Code(err) != sqlerr.StatementTooComplex {
				t.Fatalf("got %v (%s), want 54001", err, sqlerr.Code(err))
			}
		})
	}
}

// TestBigFlatStatementsPlan checks that big flat statements stay under
// MaxPlanNodes.
func TestBigFlatStatementsPlan(t *testing.T) {
	cat := newTestCatalog(t)
	for _, tt := range []struct{ name, sql string }{
		{"in-list", "SELECT k FROM t WHERE k IN (0" + strings.Repeat(", 1", 100000) + ")"},
		{"or-list", "SELECT k FROM t WHERE k = 0" + strings.Repeat(" OR k = 1", 20000)},
		{"nested-12", "SELECT " + strings.Repeat("nullif(", 12) + "k" + strings.Repeat(", 2)", 12) + " FROM t"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Plan(cat, tt.sql); err != nil {
				t.Fatal(err)
			}
		})
	}
}
