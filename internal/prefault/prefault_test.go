package prefault

import (
	"bytes"
	"testing"
)

// TestSliceKeepsContents: mapping in a buffer that holds data, and one
// reused after its first bytes were written, changes none of it; a
// buffer too small for the call, and an empty one, are left alone.
func TestSliceKeepsContents(t *testing.T) {
	b := make([]byte, 3<<20)
	for i := range b {
		b[i] = byte(i * 7)
	}
	want := bytes.Clone(b)
	Slice(b)
	if !bytes.Equal(b, want) {
		t.Fatal("Slice changed the buffer's contents")
	}
	part := make([]uint32, 10, 1<<20)
	for i := range part {
		part[i] = uint32(i + 1)
	}
	Slice(part)
	for i, v := range part {
		if v != uint32(i+1) {
			t.Fatalf("part[%d] = %d after Slice, want %d", i, v, i+1)
		}
	}
	if extra := part[10:cap(part)]; !allZero(extra) {
		t.Fatal("Slice wrote past the slice's length")
	}
	Slice(make([]byte, 100))
	Slice([]int64(nil))
}

func allZero(s []uint32) bool {
	for _, v := range s {
		if v != 0 {
			return false
		}
	}
	return true
}
