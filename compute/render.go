package compute

import (
	"fmt"
	"math"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// Collection is a rendered relation: its rows and its row errors.
type Collection struct {
	Rows dataflow.Stream[arrange.Update]
	Errs dataflow.Stream[arrange.Update]
}

// Source gives the collections Gets read.
type Source interface {
	// Collection returns the collection a Get reads, built in the
	// dataflow being rendered, as rows of width columns: a table may
	// hold wider rows than a plan made before columns were added to it
	// reads, and those rows are cut to their first width columns
	// (repr.Row.Prefix).
	Collection(b *dataflow.Builder, id expr.GlobalID, width int) (Collection, error)
}

// SourceFunc is a Source that is a function.
type SourceFunc func(b *dataflow.Builder, id expr.GlobalID, width int) (Collection, error)

// Collection calls f.
func (f SourceFunc) Collection(b *dataflow.Builder, id expr.GlobalID, width int) (Collection, error) {
	return f(b, id, width)
}

// Render builds plan into the dataflow b builds and returns its output.
// It runs inside the build function, once on every worker.
func Render(b *dataflow.Builder, plan expr.Relation, source Source) (Collection, error) {
	return RenderIndexed(b, plan, source, nil)
}

// RenderIndexed is Render whose joins read an input from one of ix's
// indexes wherever one serves it (Indexes).
func RenderIndexed(b *dataflow.Builder, plan expr.Relation, source Source, ix *Indexes) (Collection, error) {
	if err := expr.Check(plan); err != nil {
		return Collection{}, err
	}
	r := &renderer{b: b, source: source, indexes: ix, locals: map[expr.LocalID]Collection{}, gets: map[getKey]Collection{}}
	return r.render(plan)
}

type renderer struct {
	b      *dataflow.Builder
	source Source
	// indexes are those joins may read; nil: none.
	indexes *Indexes
	locals  map[expr.LocalID]Collection
	// gets shares one source per global id and width within a
	// dataflow.
	gets map[getKey]Collection
	// ownLocals counts the locals the renderer bound itself.
	ownLocals expr.LocalID
}

// freshLocal returns a local id that no plan binds: plans number their
// lets up from 1, and the renderer numbers its own down from the top.
func (r *renderer) freshLocal() expr.LocalID {
	r.ownLocals++
	return math.MaxUint64 - r.ownLocals
}

// getKey is a Get's collection and the width it reads it at.
type getKey struct {
	id    expr.GlobalID
	width int
}

func (r *renderer) render(plan expr.Relation) (Collection, error) {
	switch n := plan.(type) {
	case expr.Constant:
		return r.constant(n), nil
	case expr.Get:
		k := getKey{n.ID, len(n.Types)}
		if c, ok := r.gets[k]; ok {
			return c, nil
		}
		c, err := r.source.Collection(r.b, n.ID, len(n.Types))
		if err != nil {
			return Collection{}, err
		}
		r.gets[k] = c
		return c, nil
	case expr.LocalGet:
		c, ok := r.locals[n.ID]
		if !ok {
			return Collection{}, sqlerr.AssertionFailedf("unbound local %s", n.ID)
		}
		return c, nil
	case expr.Recursive:
		// Evaluated to its rows before a query runs; no dataflow keeps
		// one (a view over one is refused).
		return Collection{}, sqlerr.New(sqlerr.FeatureNotSupported, "WITH RECURSIVE is not supported in materialized views or indexes")
	case expr.Let:
		v, err := r.render(n.Value)
		if err != nil {
			return Collection{}, err
		}
		r.locals[n.ID] = v
		return r.render(n.Body)
	case expr.Map, expr.Filter, expr.Project, expr.FlatMap:
		return r.mfp(plan)
	case expr.Join:
		return r.join(n)
	case expr.Reduce:
		return r.reduce(n)
	case expr.Window:
		return r.window(n)
	case expr.TopK:
		return r.topK(n)
	case expr.Distinct:
		return r.threshold(n.Input, "distinct", func(c int64) int64 {
			if c > 0 {
				return 1
			}
			return 0
		})
	case expr.Threshold:
		return r.threshold(n.Input, "threshold", func(c int64) int64 { return max(c, 0) })
	case expr.Negate:
		in, err := r.render(n.Input)
		if err != nil {
			return Collection{}, err
		}
		rows := dataflow.Map(in.Rows, "negate", dataflow.Pipeline[arrange.Update](), func(u arrange.Update) arrange.Update {
			u.Diff = -u.Diff
			return u
		})
		return Collection{Rows: rows, Errs: in.Errs}, nil
	case expr.Union:
		var out Collection
		for i, input := range n.Inputs {
			c, err := r.render(input)
			if err != nil {
				return Collection{}, err
			}
			if i == 0 {
				out = c
				continue
			}
			out.Rows = dataflow.Concat(out.Rows, c.Rows, "union")
			out.Errs = dataflow.Concat(out.Errs, c.Errs, "union errors")
		}
		return out, nil
	}
	return Collection{}, sqlerr.New(sqlerr.FeatureNotSupported, "rendering %T is not supported", plan)
}

// constant emits the rows at the dataflow's start from worker 0.
func (r *renderer) constant(n expr.Constant) Collection { return r.constantFrom(n, false) }

// constantOnEveryWorker emits the rows at the dataflow's start from every
// worker: a chain over it shares the work (share.go).
func (r *renderer) constantOnEveryWorker(n expr.Constant) Collection { return r.constantFrom(n, true) }

func (r *renderer) constantFrom(n expr.Constant, everyWorker bool) Collection {
	b := r.b
	ob := b.NewOperator("constant")
	out, rows := dataflow.NewOutput[arrange.Update](ob)
	ob.Build(func(_ *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		cap := caps[0]
		return dataflow.ScheduleFunc(func() {
			if cap == nil {
				return
			}
			if everyWorker || b.Index() == 0 {
				for _, row := range n.Rows {
					out.Give(cap.Time(), arrange.Update{Key: repr.PackRow(row.Datums...), Time: cap.Time(), Diff: row.Diff})
				}
			}
			cap.Release()
			cap = nil
		})
	})
	return Collection{Rows: rows, Errs: empty(b)}
}

// empty returns a collection that never has an update.
func empty(b *dataflow.Builder) dataflow.Stream[arrange.Update] {
	ob := b.NewOperator("empty")
	_, s := dataflow.NewOutput[arrange.Update](ob)
	ob.Build(func(_ *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		caps[0].Release()
		return dataflow.ScheduleFunc(func() {})
	})
	return s
}

// errorUpdate encodes a row error as an update of the error collection:
// the key holds the SQLSTATE and the message.
func errorUpdate(err error, t uint64, diff int64) arrange.Update {
	e := sqlerr.From(err)
	return arrange.Update{Key: []byte(e.Code + "\x00" + e.Message), Time: t, Diff: diff}
}

// DecodeError turns an error update's key back into an error.
func DecodeError(key []byte) error {
	for i, c := range key {
		if c == 0 {
			return sqlerr.New(string(key[:i]), "%s", key[i+1:])
		}
	}
	return sqlerr.AssertionFailedf("malformed error key %q", key)
}

// decode unpacks a row of the given types; a failure is a bug.
func decode(row []byte, types []repr.Type, dst []repr.Datum) []repr.Datum {
	ds, err := repr.Row(row).DecodeInto(dst, types)
	if err != nil {
		panic(sqlerr.AssertionFailedf("decoding a row of %v: %v", types, err))
	}
	return ds
}

func reprTypes(cts []expr.ColumnType) []repr.Type {
	ts := make([]repr.Type, len(cts))
	for i, c := range cts {
		ts[i] = c.Type
	}
	return ts
}

func (r *renderer) String() string { return fmt.Sprintf("renderer(%d)", r.b.ID()) }
