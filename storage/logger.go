package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// pebbleLogger passes pebble's log lines to slog and turns its fatal
// errors into poison.
//
// Pebble reports a failed commit, a failed WAL sync among them, by calling
// Fatalf and then returning nil from Batch.Commit, on the assumption that
// Fatalf ended the process. This logger instead records the error with
// fatal, which poisons the store; the committer checks for poison after
// every commit, so the failed group is never acknowledged.
type pebbleLogger struct {
	log   *slog.Logger
	fatal func(error)
}

// Infof logs at debug level: pebble's informational lines (flushes,
// compactions, WAL rotations) are too many for the server's log.
func (l pebbleLogger) Infof(format string, args ...any) {
	if l.log.Enabled(context.Background(), slog.LevelDebug) {
		l.log.Debug(fmt.Sprintf(format, args...), "component", "pebble")
	}
}

// Errorf logs at error level.
func (l pebbleLogger) Errorf(format string, args ...any) {
	l.log.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

// Fatalf logs at error level and poisons the store. The error is the
// first error among args, so that callers can match it with errors.Is,
// or the formatted message if there is none.
func (l pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.log.Error(msg, "component", "pebble", "fatal", true)
	cause := errors.New(msg)
	for _, a := range args {
		if err, ok := a.(error); ok {
			cause = err
			break
		}
	}
	l.fatal(cause)
}
