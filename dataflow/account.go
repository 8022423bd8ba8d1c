package dataflow

import (
	"sync"
	"sync/atomic"
	"time"
)

// Account is the memory a dataflow holds: the bytes of its arranged and
// buffered state, as its operators report them (Builder.Account). A
// dataflow has one account across its workers, so the operators of every
// worker add to it; it may be read from any goroutine. What the account
// counts is the operators' own estimate of the heap they keep reachable,
// not an allocator's figure: it is for choosing among dataflows and for
// showing what each holds, not for the heap's total.
//
// The account also counts what the dataflow's imports read: the records
// each import found in its arrangement when the dataflow was built (to
// read) and the records its operators have taken from what the imports
// forward (read), so that a dataflow that is hydrating can say how far
// it has got. An import whose arrangement had not yet reached the
// dataflow's start at the build has more of its snapshot to come: it
// counts those records to read as they arrive, and is catching up until
// then.
type Account struct {
	bytes      atomic.Int64
	toRead     atomic.Int64
	read       atomic.Int64
	skipped    atomic.Int64
	catchingUp atomic.Int64
}

// Add adds delta (which may be negative) to the account.
func (a *Account) Add(delta int64) {
	if a != nil && delta != 0 {
		a.bytes.Add(delta)
	}
}

// Bytes returns the bytes the account holds now.
func (a *Account) Bytes() int64 {
	if a == nil {
		return 0
	}
	return a.bytes.Load()
}

// AddToRead adds n records to what the dataflow's imports have to read.
func (a *Account) AddToRead(n int64) {
	if a != nil && n != 0 {
		a.toRead.Add(n)
	}
}

// AddRead adds n records to what the dataflow has read of its imports.
func (a *Account) AddRead(n int64) {
	if a != nil && n != 0 {
		a.read.Add(n)
	}
}

// AddSkipped adds n records to what the dataflow has read of its
// imports that an operator passed over without reading them (records
// a seek skipped): they count as read, so that a hydration's progress
// reaches what it had to read, and as skipped.
func (a *Account) AddSkipped(n int64) {
	if a != nil && n != 0 {
		a.read.Add(n)
		a.skipped.Add(n)
	}
}

// Skipped returns the records counted as read that were passed over
// (AddSkipped).
func (a *Account) Skipped() int64 {
	if a == nil {
		return 0
	}
	return a.skipped.Load()
}

// AddCatchingUp adds delta to the imports still catching up.
func (a *Account) AddCatchingUp(delta int64) {
	if a != nil {
		a.catchingUp.Add(delta)
	}
}

// Reading returns the records read of the imports and the records they
// had to read at the build. Read keeps counting the changes that follow,
// so it passes toRead once the dataflow is hydrated. toRead is final
// once no import is catching up (see CatchingUp).
func (a *Account) Reading() (read, toRead int64) {
	if a == nil {
		return 0, 0
	}
	return a.read.Load(), a.toRead.Load()
}

// CatchingUp returns how many imports have not yet been given all of
// their snapshot.
func (a *Account) CatchingUp() int64 {
	if a == nil {
		return 0
	}
	return a.catchingUp.Load()
}

// accounts is a cluster's dataflows' accounts, by id, shared by its
// workers: the first worker to build a dataflow opens its account, the
// last to end it closes it.
type accounts struct {
	mu   sync.Mutex
	byID map[ID]*sharedAccount
}

type sharedAccount struct {
	Account
	// open counts the workers on which the dataflow is built and has not
	// ended.
	open int
	// built is when the first worker built the dataflow.
	built time.Time
}

func newAccounts() *accounts { return &accounts{byID: make(map[ID]*sharedAccount)} }

// open returns dataflow id's account, for one more worker.
func (as *accounts) open(id ID) *Account {
	if as == nil {
		return &Account{}
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	a := as.byID[id]
	if a == nil {
		a = &sharedAccount{built: time.Now()}
		as.byID[id] = a
	}
	a.open++
	return &a.Account
}

// close is the end of dataflow id on one worker; the account goes with
// the last.
func (as *accounts) close(id ID) {
	if as == nil {
		return
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if a := as.byID[id]; a != nil {
		if a.open--; a.open <= 0 {
			delete(as.byID, id)
		}
	}
}

// bytes returns dataflow id's bytes, 0 for a dataflow with no account.
func (as *accounts) bytes(id ID) int64 {
	as.mu.Lock()
	defer as.mu.Unlock()
	if a := as.byID[id]; a != nil {
		return a.Bytes()
	}
	return 0
}

// reading returns dataflow id's Reading and CatchingUp, zeros for one
// with no account.
func (as *accounts) reading(id ID) (read, toRead, catchingUp int64) {
	as.mu.Lock()
	defer as.mu.Unlock()
	if a := as.byID[id]; a != nil {
		read, toRead = a.Reading()
		return read, toRead, a.CatchingUp()
	}
	return 0, 0, 0
}

// built returns when every open account's dataflow was built.
func (as *accounts) builtAt() map[ID]time.Time {
	as.mu.Lock()
	defer as.mu.Unlock()
	m := make(map[ID]time.Time, len(as.byID))
	for id, a := range as.byID {
		m[id] = a.built
	}
	return m
}

// all returns every open account's bytes.
func (as *accounts) all() map[ID]int64 {
	as.mu.Lock()
	defer as.mu.Unlock()
	m := make(map[ID]int64, len(as.byID))
	for id, a := range as.byID {
		m[id] = a.Bytes()
	}
	return m
}
