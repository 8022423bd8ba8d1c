package pgwire

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestRowEncoding encodes DataRows in mixed formats: NULL stays NULL, an
// empty string stays an empty value in both formats, and binary values
// land in their own columns.
func TestRowEncoding(t *testing.T) {
	c := &conn{}
	// A fresh writer whose only binary value is empty.
	first := &resultWriter{c: c, cols: []Column{{TypeOID: oidText}}, formats: []int16{1}}
	if err := first.Row([][]byte{{}}); err != nil {
		t.Fatal(err)
	}
	cols := []Column{{TypeOID: oidText}, {TypeOID: oidInt4}, {TypeOID: oidText}, {TypeOID: oidInt8}, {TypeOID: oidText}}
	w := &resultWriter{c: c, cols: cols, formats: []int16{1, 1, 0, 1, 1}}
	rows := [][][]byte{
		{[]byte(""), nil, []byte(""), []byte("-2"), []byte("x")},
		{nil, []byte("7"), nil, nil, []byte("")},
	}
	for _, row := range rows {
		if err := w.Row(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Row([][]byte{nil}); err == nil {
		t.Error("a row with the wrong number of values was sent")
	}
	var got []string
	for b := c.out; len(b) > 0; {
		n := int(b[1])<<24 | int(b[2])<<16 | int(b[3])<<8 | int(b[4])
		var m pgproto3.DataRow
		if err := m.Decode(b[5 : 1+n]); err != nil {
			t.Fatal(err)
		}
		var vals []string
		for _, v := range m.Values {
			switch {
			case v == nil:
				vals = append(vals, "NULL")
			case len(v) == 0:
				vals = append(vals, "''")
			default:
				vals = append(vals, fmt.Sprintf("%x", v))
			}
		}
		got = append(got, fmt.Sprint(vals))
		b = b[1+n:]
	}
	want := []string{"['']", "['' NULL '' fffffffffffffffe 78]", "[NULL 00000007 NULL NULL '']"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
