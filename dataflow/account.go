package dataflow

import (
	"sync"
	"sync/atomic"
)

// Account is the memory a dataflow holds: the bytes of its arranged and
// buffered state, as its operators report them (Builder.Account). A
// dataflow has one account across its workers, so the operators of every
// worker add to it; it may be read from any goroutine. What the account
// counts is the operators' own estimate of the heap they keep reachable,
// not an allocator's figure: it is for choosing among dataflows and for
// showing what each holds, not for the heap's total.
type Account struct {
	bytes atomic.Int64
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
		a = &sharedAccount{}
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
