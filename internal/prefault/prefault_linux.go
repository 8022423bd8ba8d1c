package prefault

import "syscall"

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14): fault in the
// range, writable, as writes would.
const madvPopulateWrite = 23

// pageSize is the unit of the call: the range is trimmed to whole
// pages within it, so that no page the buffer only shares is touched.
var pageSize = uintptr(syscall.Getpagesize())

func populate(p, n uintptr) {
	beg := (p + pageSize - 1) &^ (pageSize - 1)
	end := (p + n) &^ (pageSize - 1)
	if beg < end {
		// An error (an older kernel's EINVAL) leaves the pages to be
		// faulted in as they are written, as without the call.
		syscall.Syscall(syscall.SYS_MADVISE, beg, end-beg, madvPopulateWrite)
	}
}
