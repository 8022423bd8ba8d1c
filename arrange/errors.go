package arrange

import "errors"

var (
	// ErrHandleClosed is returned by every method of a handle after its
	// Close, and by a second Close.
	ErrHandleClosed = errors.New("trace handle is closed")
	// ErrCompacted is returned when a reader asks for a since below the
	// trace's: the updates before it may already have been compacted, so
	// accumulations there can no longer be read exactly.
	ErrCompacted = errors.New("trace is compacted past the requested time")
	// ErrSinceBackwards is returned when a handle's since is asked to move
	// back: compaction may already have used the old one.
	ErrSinceBackwards = errors.New("since cannot move backwards")
	// ErrNotContiguous is returned when a batch inserted into a spine or
	// trace does not start at its upper, which would leave a gap or an
	// overlap in time.
	ErrNotContiguous = errors.New("batch does not start at the upper")
)
