package sqllogic

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// RenderRows renders a result row-major: value j of a row in column type
// types[j]. A row with more values than types renders the extra values
// as Text.
func RenderRows(types []ColumnType, rows [][]Value) []string {
	out := make([]string, 0, len(rows)*len(types))
	for _, row := range rows {
		for j, v := range row {
			t := Text
			if j < len(types) {
				t = types[j]
			}
			out = append(out, v.Render(t))
		}
	}
	return out
}

// Sort orders rendered values in place for mode. columns is the number
// of values per row; RowSort needs it, and leaves values alone if it
// does not divide len(values).
func Sort(mode SortMode, columns int, values []string) {
	switch mode {
	case ValueSort:
		slices.Sort(values)
	case RowSort:
		if columns <= 0 || len(values)%columns != 0 {
			return
		}
		rows := make([][]string, 0, len(values)/columns)
		for i := 0; i < len(values); i += columns {
			rows = append(rows, slices.Clone(values[i:i+columns]))
		}
		slices.SortStableFunc(rows, slices.Compare)
		for i, row := range rows {
			copy(values[i*columns:], row)
		}
	}
}

// Hash returns the lowercase hex MD5 of the values, each followed by
// "\n": the hash a file stores as "N values hashing to <hash>".
func Hash(values []string) string {
	h := md5.New()
	for _, v := range values {
		h.Write([]byte(v))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Match reports whether got, rendered and sorted, is the expected result:
// the same count and hash if the file stores a hash, else the same
// values in the same order.
func (e *Expected) Match(got []string) bool {
	if e.Hashed {
		return len(got) == e.Count && Hash(got) == e.Hash
	}
	return slices.Equal(got, e.Values)
}

// String returns the expected block as the file writes it, one value a
// line.
func (e *Expected) String() string {
	if e.Hashed {
		return HashLine(e.Count, e.Hash)
	}
	return strings.Join(e.Values, "\n")
}

// HashLine returns the line that stands for n values hashing to hash.
func HashLine(n int, hash string) string {
	return fmt.Sprintf("%d values hashing to %s", n, hash)
}

// Check renders rows in the record's column types, sorts them in its sort
// mode and compares them with its expected result. It returns the
// rendered values, and an error that says how they differ if they do not
// match (a wrong number of columns included). It does not check labels.
func (r *Record) Check(columns int, rows [][]Value) (got []string, err error) {
	if columns != len(r.Types) {
		return nil, fmt.Errorf("expected %d columns, got %d", len(r.Types), columns)
	}
	got = RenderRows(r.Types, rows)
	Sort(r.Sort, columns, got)
	if r.Expected.Match(got) {
		return got, nil
	}
	if r.Expected.Hashed {
		if len(got) != r.Expected.Count {
			return got, fmt.Errorf("expected %d values, got %d", r.Expected.Count, len(got))
		}
		return got, fmt.Errorf("hash differs: expected %s, got %s", r.Expected.Hash, Hash(got))
	}
	if len(got) != len(r.Expected.Values) {
		return got, fmt.Errorf("expected %d values, got %d", len(r.Expected.Values), len(got))
	}
	for i := range got {
		if got[i] != r.Expected.Values[i] {
			return got, fmt.Errorf("value %d (row %d, column %d) differs: expected %q, got %q",
				i+1, i/columns+1, i%columns+1, r.Expected.Values[i], got[i])
		}
	}
	return got, nil
}
