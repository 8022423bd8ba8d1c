package prefault

import (
	"syscall"
	"testing"
	"unsafe"
)

// TestSliceMapsIn: after Slice, every whole page of a new buffer that
// nothing has written is resident (mincore), where without it none
// would be.
func TestSliceMapsIn(t *testing.T) {
	const size = 8 << 20
	resident := func(b []byte) (in, pages int) {
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		beg := (p + pageSize - 1) &^ (pageSize - 1)
		end := (p + uintptr(len(b))) &^ (pageSize - 1)
		vec := make([]byte, (end-beg)/pageSize)
		if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, beg, end-beg, uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
			t.Fatalf("mincore: %v", errno)
		}
		for _, v := range vec {
			in += int(v & 1)
		}
		return in, len(vec)
	}
	// A large allocation is a span of its own, mapped from the system
	// and, new, not yet written; a few of its pages may be resident
	// (reused), so the test asks only that Slice makes all of them so.
	b := make([]byte, size)
	Slice(b)
	if in, pages := resident(b); in != pages {
		t.Fatalf("%d of %d pages resident after Slice", in, pages)
	}
}
