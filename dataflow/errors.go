package dataflow

import (
	"errors"
	"fmt"
)

var (
	// ErrDropped is returned by the handles of a dataflow that was dropped.
	ErrDropped = errors.New("dataflow dropped")
	// ErrFailed is returned by the handles of a dataflow that failed (an
	// operator panicked) on this worker.
	ErrFailed = errors.New("dataflow failed")
	// ErrClosed is returned by an input handle after Close.
	ErrClosed = errors.New("input closed")
	// ErrTimePassed is returned when an input is asked to send at, or
	// advance to, a time before its current time.
	ErrTimePassed = errors.New("time is before the input's current time")
	// ErrClusterClosed is returned by a Cluster that was closed.
	ErrClusterClosed = errors.New("cluster closed")
)

// AssertionError reports a broken invariant: a bug, not bad input. Inside
// an operator it panics, so the worker fails that dataflow alone.
type AssertionError struct{ msg string }

func (e *AssertionError) Error() string { return "assertion failed: " + e.msg }

func assertionFailedf(format string, args ...any) *AssertionError {
	return &AssertionError{msg: fmt.Sprintf(format, args...)}
}

// endedError returns the error a handle of a dataflow that ended for
// reason r reports, or nil if it completed.
func endedError(r Reason) error {
	switch r {
	case Dropped:
		return ErrDropped
	case Failed:
		return ErrFailed
	}
	return nil
}
