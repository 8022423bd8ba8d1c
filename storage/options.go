package storage

import (
	"log/slog"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Options configures Open. The zero value keeps the store in the
// operating system's filesystem and discards log lines.
type Options struct {
	// FS is the filesystem the store lives in. Nil means the operating
	// system's, or a new in-memory one if Mem is set. Tests pass
	// vfs.NewMem(), or an error-injecting wrapper of it, and pass the same
	// FS again to reopen what they wrote.
	FS vfs.FS
	// Mem, when FS is nil, keeps the store in a new in-memory filesystem
	// that disappears with the Store: for tests that never reopen.
	Mem bool
	// Logger receives the store's log lines and pebble's. Nil discards
	// them.
	Logger *slog.Logger
	// OnSync, if set, is told how long each group commit's write and
	// sync took (metrics).
	OnSync func(time.Duration)
}

// maxGroupTxns and maxGroupBytes bound one group commit: a larger group
// would only delay its first caller, and a pebble batch over half the
// memtable size takes a slower path.
const (
	maxGroupTxns  = 1024
	maxGroupBytes = 1 << 20
)

// fs returns the filesystem o selects.
func (o *Options) fs() vfs.FS {
	switch {
	case o.FS != nil:
		return o.FS
	case o.Mem:
		return vfs.NewMem()
	default:
		return vfs.Default
	}
}

// logger returns the logger o selects.
func (o *Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// pebbleOptions returns the options Open passes to pebble.
func pebbleOptions(fs vfs.FS, lock *pebble.Lock, logger pebble.Logger) *pebble.Options {
	return &pebble.Options{
		FS:                 fs,
		Lock:               lock,
		Logger:             logger,
		FormatMajorVersion: pebble.FormatNewest,
	}
}
