package compute

import (
	"errors"
	"fmt"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
)

// ErrorsID returns the global id under which the errors of collection id
// are exported: the id with its top bit set, a range catalog ids never
// reach.
func ErrorsID(id expr.GlobalID) arrange.GlobalID { return arrange.GlobalID(id) | 1<<63 }

// ImportedSource is the Source of a dataflow whose Gets read exported
// arrangements: the rows exported under the Get's id and, if any, the
// errors exported under ErrorsID. keyed reports the ids of indexes, whose
// arrangements hold each row as the val under its index key (ExportIndex);
// other exports hold the row as the key.
func ImportedSource(reg *arrange.Registry, keyed func(expr.GlobalID) bool) Source {
	return func(b *dataflow.Builder, id expr.GlobalID, width int) (Collection, error) {
		rows, err := reg.Import(b, arrange.GlobalID(id), fmt.Sprintf("import %d", id))
		if err != nil {
			return Collection{}, err
		}
		// A row narrower than width is one that an ALTER TABLE … ADD
		// COLUMN retracted at a time at or before this dataflow's start
		// (a plan of the new width is made after it): its updates in the
		// replay, which may lie in different batches, sum to nothing,
		// and they are skipped.
		row := func(key, _ []byte) ([]byte, bool) { return repr.Row(key).PrefixOf(width) }
		if keyed != nil && keyed(id) {
			row = func(_, val []byte) ([]byte, bool) { return repr.Row(val).PrefixOf(width) }
		}
		c := Collection{Rows: flatten(rows, fmt.Sprintf("rows of %d", id), row)}
		errs, err := reg.Import(b, ErrorsID(id), fmt.Sprintf("import errors %d", id))
		switch {
		case errors.Is(err, arrange.ErrNoExport):
			c.Errs = empty(b)
		case err != nil:
			return Collection{}, err
		default:
			c.Errs = flatten(errs, fmt.Sprintf("errors of %d", id), wholeKey)
		}
		return c, nil
	}
}

// Export arranges a rendered collection and exports its rows under id and
// its errors under ErrorsID(id), so that later dataflows can import both.
func Export(b *dataflow.Builder, reg *arrange.Registry, c Collection, id expr.GlobalID) error {
	if err := reg.Export(b, arrange.Arrange(c.Rows, fmt.Sprintf("arrange %d", id)), arrange.GlobalID(id)); err != nil {
		return err
	}
	return reg.Export(b, arrange.Arrange(c.Errs, fmt.Sprintf("arrange errors %d", id)), ErrorsID(id))
}

// ExportIndex renders relation on, arranges its rows by the key scalars
// (Key = packed keys, Val = row) and exports the arrangement under id:
// an index that later dataflows can import instead of arranging again.
// Joins in on read from ix's indexes as RenderIndexed's do.
func ExportIndex(b *dataflow.Builder, reg *arrange.Registry, on expr.Relation, keys []expr.Scalar, source Source, ix *Indexes, id expr.GlobalID) error {
	r := &renderer{b: b, source: source, indexes: ix, locals: map[expr.LocalID]Collection{}, gets: map[getKey]Collection{}}
	c, err := r.render(on)
	if err != nil {
		return err
	}
	a, keyErrs := r.arrangeBy(c, fmt.Sprintf("index %d", id), reprTypes(on.Typ()), keys)
	if err := reg.Export(b, a, arrange.GlobalID(id)); err != nil {
		return err
	}
	errs := dataflow.Concat(c.Errs, keyErrs, "index errors")
	return reg.Export(b, arrange.Arrange(errs, fmt.Sprintf("arrange errors %d", id)), ErrorsID(id))
}

// ImportIndex imports the arrangement exported under index id
// (ExportIndex) and its errors, for Indexes.Import.
func ImportIndex(reg *arrange.Registry, b *dataflow.Builder, id expr.GlobalID) (*arrange.Arranged, dataflow.Stream[arrange.Update], error) {
	var none dataflow.Stream[arrange.Update]
	a, err := reg.Import(b, arrange.GlobalID(id), fmt.Sprintf("import index %d", id))
	if err != nil {
		return nil, none, err
	}
	errs, err := reg.Import(b, ErrorsID(id), fmt.Sprintf("import errors %d", id))
	if err != nil {
		return nil, none, err
	}
	return a, flatten(errs, fmt.Sprintf("errors of %d", id), wholeKey), nil
}

// wholeKey is the row of an arrangement whose keys are its rows.
func wholeKey(key, _ []byte) ([]byte, bool) { return key, true }
