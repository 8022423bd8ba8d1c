// Package prefault maps in, with one system call, the memory of a large
// buffer about to be filled, rather than one page fault at a time as
// the buffer is written.
//
// A page fault costs far more on some machines than the write that
// takes it: on virtual machines whose host backs guest memory lazily,
// filling 200 MB of new memory a page at a time took 640–725 ms, and
// 355–380 ms when each buffer was first mapped in whole
// (MADV_POPULATE_WRITE). Memory already mapped is left as it is, so a
// buffer reused from the heap costs only a walk of its page tables.
package prefault

import "unsafe"

// Min is the least buffer, in bytes, worth a system call: four pages,
// whose faults cost several times the call where a fault is dear, and
// about as much where it is not.
const Min = 16 << 10

// Slice maps in the memory of s up to its capacity, if it is at least
// Min bytes; its contents are unchanged. Where the system has no such
// call, or refuses it, it does nothing.
func Slice[T any](s []T) {
	var zero T
	n := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if n < Min {
		return
	}
	populate(uintptr(unsafe.Pointer(unsafe.SliceData(s[:1]))), n)
}
