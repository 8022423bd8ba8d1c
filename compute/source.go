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
	return importedSource{reg: reg, keyedBy: keyed}
}

// SharedSource is ImportedSource for a dataflow whose result is arranged
// (a materialized view, an index): its operators are linear in the rows
// they read, or arrange them first, and its errors are arranged before
// anything reads them, so the rows of the ids shared reports are
// imported with arrange.Registry.ImportShared, the trace's batches
// shared and unconsolidated rather than copied into one. shared must
// report false for a table that ALTER TABLE rewrote since the engine
// started: its trace holds rows of the old shape, which only their
// retractions cancel and the new plan cannot decode. Errors are always
// imported consolidated.
func SharedSource(reg *arrange.Registry, keyed, shared func(expr.GlobalID) bool) Source {
	return importedSource{reg: reg, keyedBy: keyed, shared: shared}
}

type importedSource struct {
	reg     *arrange.Registry
	keyedBy func(expr.GlobalID) bool
	shared  func(expr.GlobalID) bool
}

func (s importedSource) keyed(id expr.GlobalID) bool { return s.keyedBy != nil && s.keyedBy(id) }

// importedRows is a Get's collection as the arrangement it is read from:
// each (key, val) holds a row (stored), of which the Get reads width
// columns (row).
type importedRows struct {
	rows *arrange.Arranged
	// keyed: the row is the val (an index's arrangement), not the key.
	keyed bool
	width int
	errs  dataflow.Stream[arrange.Update]
	// seek, when not nil, is the runs of keys that hold every row the
	// chain read over the arrangement may keep (importedChain): an
	// operator that runs the chain over each row may read only them.
	seek []KeyRange
}

// stored returns the row a (key, val) holds, as stored: it may have more
// columns than the Get reads (row).
func (in importedRows) stored(key, val []byte) []byte {
	if in.keyed {
		return val
	}
	return key
}

// row returns the row of the Get that a (key, val) holds, cut to its
// width.
func (in importedRows) row(key, val []byte) []byte {
	return repr.Row(in.stored(key, val)).Prefix(in.width)
}

// arrangedSource is a Source whose collections are the contents of
// arrangements. An operator that reads each row of a Get once can read
// the arrangement's batches (importedRows) instead of the updates a
// flatten makes of them.
type arrangedSource interface {
	Source
	arranged(b *dataflow.Builder, id expr.GlobalID, width int) (importedRows, error)
	// keyed reports whether id is read from an arrangement keyed by
	// other columns than its rows' (importedRows.keyed).
	keyed(id expr.GlobalID) bool
}

func (s importedSource) Collection(b *dataflow.Builder, id expr.GlobalID, width int) (Collection, error) {
	in, err := s.arranged(b, id, width)
	if err != nil {
		return Collection{}, err
	}
	return Collection{Rows: flatten(in.rows, fmt.Sprintf("rows of %d", id), in.row), Errs: in.errs}, nil
}

func (s importedSource) arranged(b *dataflow.Builder, id expr.GlobalID, width int) (importedRows, error) {
	imp := s.reg.Import
	if s.shared != nil && s.shared(id) {
		imp = s.reg.ImportShared
	}
	rows, err := imp(b, arrange.GlobalID(id), fmt.Sprintf("import %d", id))
	if err != nil {
		return importedRows{}, err
	}
	in := importedRows{rows: rows, keyed: s.keyed(id), width: width}
	errs, err := s.reg.Import(b, ErrorsID(id), fmt.Sprintf("import errors %d", id))
	switch {
	case errors.Is(err, arrange.ErrNoExport):
		in.errs = empty(b)
	case err != nil:
		return importedRows{}, err
	default:
		in.errs = flatten(errs, fmt.Sprintf("errors of %d", id), wholeKey)
	}
	return in, nil
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
func wholeKey(key, _ []byte) []byte { return key }
