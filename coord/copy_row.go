package coord

import (
	"unsafe"

	"freshet/expr"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// copyRowBuilder turns the text fields of COPY FROM's rows into packed
// table rows, straight from the text to the row encoding where
// repr.AppendTextFast knows the form (the integers and numerics of a
// bulk load), through a datum otherwise.
//
// A row is what repr.PackRow makes of the row of datums that reading
// each field with ParseField gives, defaults and NULL elsewhere; its
// errors come in the same order: a default's, then the first field that
// does not read, then the first NOT NULL column in table order that is
// NULL.
//
// The parsers of a COPY's segments each have a builder, on cores of
// their own: a builder's memory shares no cache line with other memory
// (ownLines, the pads).
type copyRowBuilder struct {
	_        linePad
	st       *planner.Copy
	defaults []expr.Scalar
	// field is, per table column, the index of the COPY field that
	// gives it, or -1.
	field []int
	// fast is, per field, whether AppendTextFast may read it: its
	// column's type has a fast path and no enum labels.
	fast []bool

	// fieldCol is, per field, the table column it gives.
	fieldCol []int

	// Per row, reused.
	defaulted []repr.Datum // per table column with a default
	encoded   []byte       // the columns' encodings, in no order
	spans     [][2]int     // per table column, its encoding in encoded
	null      []bool       // per field, whether it is NULL
	_         linePad
}

func newCopyRowBuilder(st *planner.Copy, defaults []expr.Scalar) *copyRowBuilder {
	b := &copyRowBuilder{
		st:        st,
		defaults:  defaults,
		field:     ownLines[int](len(st.Table.Columns)),
		fast:      ownLines[bool](len(st.Columns)),
		defaulted: ownLines[repr.Datum](len(st.Table.Columns)),
		encoded:   ownLines[byte](copyRowRoom)[:0],
		spans:     ownLines[[2]int](len(st.Table.Columns)),
		fieldCol:  st.Columns,
		null:      ownLines[bool](len(st.Columns)),
	}
	for i := range b.field {
		b.field[i] = -1
	}
	for fi, ci := range st.Columns {
		b.field[ci] = fi
		t := st.Table.Columns[ci].Type
		_, fast := repr.AppendTextFast(nil, t, []byte("0"))
		b.fast[fi] = fast && (fi >= len(st.Labels) || st.Labels[fi] == nil)
	}
	return b
}

// encode encodes the table row of one row of COPY fields (nil for
// NULL), which appendRow then appends where it goes, and returns its
// size, or an error and the index of the field it is about, -1 for
// none.
func (b *copyRowBuilder) encode(fields [][]byte, zone *repr.Zone) (int, int, error) {
	for i, d := range b.defaults {
		if d == nil {
			continue
		}
		v, err := d.Eval(nil)
		if err != nil {
			return 0, -1, err
		}
		b.defaulted[i] = v
	}
	// Every field's encoding, NULL's included, goes to b.encoded, then
	// every default's; the row is then those spans in table order.
	b.encoded = b.encoded[:0]
	for fi, f := range fields {
		start := len(b.encoded)
		b.null[fi] = f == nil
		switch {
		case f == nil:
			b.encoded = repr.AppendDatum(b.encoded, repr.Null)
		default:
			var ok bool
			if b.fast[fi] {
				b.encoded, ok = repr.AppendTextFast(b.encoded, b.st.Table.Columns[b.st.Columns[fi]].Type, f)
			}
			if !ok {
				v, err := b.st.ParseField(fi, string(f), zone)
				if err != nil {
					return 0, fi, err
				}
				b.null[fi] = v.IsNull()
				b.encoded = repr.AppendDatum(b.encoded, v)
			}
		}
		b.spans[b.fieldCol[fi]] = [2]int{start, len(b.encoded)}
	}
	for i, c := range b.st.Table.Columns {
		var null bool
		switch fi := b.field[i]; {
		case fi >= 0:
			null = b.null[fi]
		case b.defaults[i] != nil:
			null = b.defaulted[i].IsNull()
		default:
			null = true
		}
		if null && !c.Nullable {
			return 0, -1, sqlerr.New(sqlerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", c.Name, b.st.Table.Name.Name)
		}
		if fi := b.field[i]; fi < 0 {
			start := len(b.encoded)
			if b.defaults[i] != nil {
				b.encoded = repr.AppendDatum(b.encoded, b.defaulted[i])
			} else {
				b.encoded = repr.AppendDatum(b.encoded, repr.Null)
			}
			b.spans[i] = [2]int{start, len(b.encoded)}
		}
	}
	return len(b.encoded), -1, nil
}

// copyRowRoom is the room for a row's encodings a builder starts with;
// a larger row's grow it, into memory that may share its lines.
const copyRowRoom = 1 << 10

// cacheLine is the size of a cache line on the machines Freshet runs on
// (amd64, and most arm64).
const cacheLine = 64

// linePad, as a struct's first and last field, keeps the fields between
// in cache lines that no other memory shares.
type linePad [cacheLine]byte

// ownLines returns n zero Ts in memory that shares no cache line with
// other memory: cacheLine bytes on either side belong to no one. Memory
// that a core writes for every row must not share a line with memory
// another core reads or writes, or each waits for the other's copy of
// the line (false sharing): two parsers of a COPY's segments, whose
// builders' small slices the allocator had packed side by side, took
// twice as long together as one alone.
func ownLines[T any](n int) []T {
	size := int(unsafe.Sizeof(*new(T)))
	k := (cacheLine + size - 1) / size
	return make([]T, n+2*k)[k : k+n : k+n]
}

// appendRow appends the row encode encoded last to dst.
func (b *copyRowBuilder) appendRow(dst []byte) []byte {
	for _, sp := range b.spans {
		dst = append(dst, b.encoded[sp[0]:sp[1]]...)
	}
	return dst
}
