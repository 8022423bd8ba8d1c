package storage

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// faultFS is a crashable in-memory filesystem whose write-ahead log syncs
// a test can hold at a gate, to let a group gather deterministically, or
// fail with errorfs.ErrInjected.
type faultFS struct {
	*errorfs.FS
	mem *vfs.MemFS

	// fail makes every WAL sync fail.
	fail atomic.Bool
	// walSyncs counts WAL syncs attempted.
	walSyncs atomic.Int64

	mu struct {
		sync.Mutex
		// gate, when not nil, holds WAL syncs until it is closed.
		gate chan struct{}
		// held is the number of syncs waiting at the gate.
		held int
	}
}

func newFaultFS() *faultFS {
	f := &faultFS{mem: vfs.NewCrashableMem()}
	f.FS = errorfs.Wrap(f.mem, errorfs.InjectorFunc(f.inject))
	return f
}

// isWALSync reports whether op syncs a write-ahead log file.
func isWALSync(op errorfs.Op) bool {
	switch op.Kind {
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
		return strings.HasSuffix(op.Path, ".log")
	}
	return false
}

func (f *faultFS) inject(op errorfs.Op) error {
	if !isWALSync(op) {
		return nil
	}
	f.walSyncs.Add(1)
	f.mu.Lock()
	gate := f.mu.gate
	if gate != nil {
		f.mu.held++
	}
	f.mu.Unlock()
	if gate != nil {
		<-gate
		f.mu.Lock()
		f.mu.held--
		f.mu.Unlock()
	}
	if f.fail.Load() {
		return errorfs.ErrInjected
	}
	return nil
}

// hold makes WAL syncs wait until release.
func (f *faultFS) hold() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mu.gate = make(chan struct{})
}

// release lets the held syncs, and later ones, go.
func (f *faultFS) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.mu.gate)
	f.mu.gate = nil
}

// heldSyncs returns the number of syncs waiting at the gate.
func (f *faultFS) heldSyncs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mu.held
}
