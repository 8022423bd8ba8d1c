package coord

import (
	"context"
	"fmt"
	"testing"

	"freshet/catalog"
	"freshet/expr"
	"freshet/repr"
)

// BenchmarkFreshness measures what a user waits for: from an INSERT's
// acknowledgement to a read of a materialized view that shows it, with
// the table already holding rows rows. Each iteration writes one row
// (durably) and then reads the view (SELECT k, count(*), sum(v) GROUP BY
// k) at a time that includes the write. The cost should follow the
// change, not the table's size.
func BenchmarkFreshness(b *testing.B) {
	for _, rows := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			ctx := context.Background()
			e, err := Open(ctx, Config{Workers: 2, DataDir: b.TempDir()}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			tb := tableObj("t")
			if err := e.CreateTable(ctx, tb, nil); err != nil {
				b.Fatal(err)
			}
			const batch = 50_000
			for i := 0; i < rows; i += batch {
				ws := make([]TableWrite, 0, batch)
				for j := i; j < min(i+batch, rows); j++ {
					ws = append(ws, TableWrite{tb.ID, row(int32(j%1000), int32(j)), 1})
				}
				if _, err := e.Write(ctx, ws); err != nil {
					b.Fatal(err)
				}
			}
			mv := &catalog.Object{Kind: catalog.MaterializedView, Name: "m", Database: catalog.DefaultDatabase, Schema: catalog.DefaultSchema,
				DependsOn: []uint64{tb.ID}, Columns: []catalog.Column{{Name: "k", Type: repr.Int4}, {Name: "sum", Type: repr.Int8}}}
			if err := e.CreateMaterializedView(ctx, mv, sumByKey(tb), nil); err != nil {
				b.Fatal(err)
			}
			// One point lookup per iteration keeps the read small: a
			// filter on the view, read at the write's time.
			read := expr.Filter{Input: expr.Get{ID: expr.GlobalID(mv.ID), Types: mv.ColumnTypes()},
				Predicates: []expr.Scalar{expr.CallBinary{Func: expr.Eq, Left: expr.Column{Index: 0}, Right: expr.Literal{Value: repr.NewInt4(7), Type: repr.Int4}}}}
			if _, err := e.Read(ctx, read, e.ReadTime()); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ts, err := e.Write(ctx, []TableWrite{{tb.ID, row(7, 1), 1}})
				if err != nil {
					b.Fatal(err)
				}
				got, err := e.Read(ctx, read, ts)
				if err != nil || len(got) != 1 {
					b.Fatalf("read: %v %v", got, err)
				}
			}
		})
	}
}

// BenchmarkWrite measures one durable single-row INSERT (a transaction at
// its own timestamp, fsynced, fed to the table's dataflow): the part of
// BenchmarkFreshness that is the write.
func BenchmarkWrite(b *testing.B) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Workers: 2, DataDir: b.TempDir()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	tb := tableObj("t")
	if err := e.CreateTable(ctx, tb, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Write(ctx, []TableWrite{{tb.ID, row(int32(i), 1), 1}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteUnique is BenchmarkWrite into a table with a primary key
// that already holds rows rows: the uniqueness check looks up the
// written key values only, so the cost should not follow the table's
// size.
func BenchmarkWriteUnique(b *testing.B) {
	for _, rows := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			ctx := context.Background()
			e, err := Open(ctx, Config{Workers: 2, DataDir: b.TempDir()}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			tb := tableObj("t")
			tb.UniqueKeys = []catalog.UniqueKey{{Name: "t_pkey", Columns: []int{0}, Primary: true}}
			if err := e.CreateTable(ctx, tb, nil); err != nil {
				b.Fatal(err)
			}
			const batch = 50_000
			for i := 0; i < rows; i += batch {
				ws := make([]TableWrite, 0, batch)
				for j := i; j < min(i+batch, rows); j++ {
					ws = append(ws, TableWrite{tb.ID, row(int32(j), 1), 1})
				}
				if _, err := e.Write(ctx, ws); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Write(ctx, []TableWrite{{tb.ID, row(int32(rows+i), 1), 1}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
