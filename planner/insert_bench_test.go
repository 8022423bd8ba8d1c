package planner

import (
	"fmt"
	"strings"
	"testing"

	"freshet/expr"
	"freshet/repr"
)

// BenchmarkPlanInsertValues parses and plans the 1,000-row INSERT …
// VALUES that freshet-bench writes with its view maintained, into
// orders (id int, customer int, amount numeric(10,2)); ns/op is one
// statement.
func BenchmarkPlanInsertValues(b *testing.B) {
	cat := newTestCatalog(b)
	amount, err := repr.TypeFromName("numeric", []int32{10, 2})
	if err != nil {
		b.Fatal(err)
	}
	cat.rels["orders"] = Relation{ID: 100, Name: QualifiedName{Schema: "public", Name: "orders"}, Kind: KindTable,
		Columns: []RelationColumn{
			{Name: "id", Type: expr.ColumnType{Type: repr.Int4, Nullable: true}},
			{Name: "customer", Type: expr.ColumnType{Type: repr.Int4, Nullable: true}},
			{Name: "amount", Type: expr.ColumnType{Type: amount, Nullable: true}},
		}}
	var sb strings.Builder
	sb.WriteString("INSERT INTO orders VALUES ")
	for g := 1000001; g <= 1001000; g++ {
		if g > 1000001 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "(%d,%d,%d.%d)", g, (g*37)%10000+1, g%1000/10, g%10)
	}
	sql := sb.String()
	b.SetBytes(int64(len(sql)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Plan(cat, sql); err != nil {
			b.Fatal(err)
		}
	}
}
