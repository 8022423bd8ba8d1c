package coord

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"freshet/catalog"
	"freshet/sqlerr"
	"freshet/storage"
)

// Sequences. A sequence's parameters are a catalog record; its position
// is in memory, with a bound kept in storage that no value handed out
// passes: nextval moves the bound sequenceLogAhead values ahead, durably,
// when it reaches it, as PostgreSQL logs 32 values ahead. After a crash
// a sequence goes on from its bound, so no value is handed out twice and
// some may be skipped, as in PostgreSQL. setval stores its value at once.

// sequenceLogAhead is how many values past the last one handed out the
// stored bound is moved.
const sequenceLogAhead = 32

// sequenceState is a sequence's position.
type sequenceState struct {
	// last is the last value handed out, or set by setval; called says
	// whether nextval has handed it out (or setval said so): if not, the
	// next nextval returns last itself.
	last   int64
	called bool
	// bound is the stored value from which the sequence goes on after a
	// restart: every value handed out lies before it, in the sequence's
	// direction.
	bound int64
}

// sequences holds the engine's sequences' positions, by catalog id.
type sequences struct {
	mu    sync.Mutex
	state map[uint64]*sequenceState
}

func sequenceMetaKey(id uint64) string { return fmt.Sprintf("sequence.%d", id) }

// sequenceStateLocked returns sequence o's position, loading it from
// storage (or starting it at START) the first time. seqs.mu is held.
func (e *Engine) sequenceStateLocked(o *catalog.Object) (*sequenceState, error) {
	if st := e.seqs.state[o.ID]; st != nil {
		return st, nil
	}
	st := &sequenceState{last: o.Seq.Start}
	v, ok, err := e.store.GetMeta(sequenceMetaKey(o.ID))
	if err != nil {
		return nil, err
	}
	if ok && len(v) == 9 {
		// A stored bound: values before it may have been handed out.
		st.last, st.called = int64(binary.BigEndian.Uint64(v)), v[8] == 1
	}
	st.bound = st.last
	if e.seqs.state == nil {
		e.seqs.state = map[uint64]*sequenceState{}
	}
	e.seqs.state[o.ID] = st
	return st, nil
}

// storeSequence makes (last, called) the position a restart goes on
// from.
func (e *Engine) storeSequence(ctx context.Context, id uint64, last int64, called bool) error {
	v := binary.BigEndian.AppendUint64(nil, uint64(last))
	if called {
		v = append(v, 1)
	} else {
		v = append(v, 0)
	}
	return e.store.Commit(context.WithoutCancel(ctx), &storage.Txn{Meta: []storage.MetaRecord{{Key: sequenceMetaKey(id), Value: v}}})
}

// sequenceByOID returns the sequence whose OID is oid.
func (e *Engine) sequenceByOID(oid int64) (*catalog.Object, error) {
	var o *catalog.Object
	if oid >= userOIDBase {
		e.Catalog(func(c *catalog.Catalog) error {
			o = c.Get(uint64(oid - userOIDBase))
			return nil
		})
	}
	if o == nil {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "could not open relation with OID %d", oid)
	}
	if o.Kind != catalog.Sequence || o.Seq == nil {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "%q is not a sequence", o.Name)
	}
	return o, nil
}

// NextVal advances sequence o and returns its new value.
func (e *Engine) NextVal(ctx context.Context, o *catalog.Object) (int64, error) {
	e.seqs.mu.Lock()
	defer e.seqs.mu.Unlock()
	st, err := e.sequenceStateLocked(o)
	if err != nil {
		return 0, err
	}
	p := o.Seq
	v := st.last
	wrapped := false
	if st.called {
		next, overflow := addInt64(st.last, p.Increment)
		switch {
		case !overflow && next >= p.Min && next <= p.Max:
			v = next
		case !p.Cycle && p.Increment > 0:
			return 0, sqlerr.New(sqlerr.SequenceGeneratorLimitExceeded, "nextval: reached maximum value of sequence %q (%d)", o.Name, p.Max)
		case !p.Cycle:
			return 0, sqlerr.New(sqlerr.SequenceGeneratorLimitExceeded, "nextval: reached minimum value of sequence %q (%d)", o.Name, p.Min)
		case p.Increment > 0:
			v, wrapped = p.Min, true
		default:
			v, wrapped = p.Max, true
		}
	}
	// The stored bound must stay ahead of every value handed out, and
	// move to the new round when the sequence cycles.
	if wrapped || (p.Increment > 0 && v >= st.bound) || (p.Increment < 0 && v <= st.bound) {
		ahead := v
		for range sequenceLogAhead {
			n, overflow := addInt64(ahead, p.Increment)
			if overflow || n < p.Min || n > p.Max {
				break
			}
			ahead = n
		}
		// Restarted from (ahead, called), the sequence hands out the
		// value after ahead: none of v .. ahead twice.
		if err := e.storeSequence(ctx, o.ID, ahead, true); err != nil {
			return 0, err
		}
		st.bound = ahead
	}
	st.last, st.called = v, true
	return v, nil
}

// SetVal sets sequence o's position: the next nextval returns v's
// successor if called, v itself if not. v must lie within the sequence's
// bounds (22003).
func (e *Engine) SetVal(ctx context.Context, o *catalog.Object, v int64, called bool) error {
	p := o.Seq
	if v < p.Min || v > p.Max {
		return sqlerr.New(sqlerr.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence %q (%d..%d)", v, o.Name, p.Min, p.Max)
	}
	e.seqs.mu.Lock()
	defer e.seqs.mu.Unlock()
	st, err := e.sequenceStateLocked(o)
	if err != nil {
		return err
	}
	if err := e.storeSequence(ctx, o.ID, v, called); err != nil {
		return err
	}
	st.last, st.called, st.bound = v, called, v
	return nil
}

// saveSequences stores every sequence's exact position, so that after a
// clean shutdown the sequences go on with no gap, as PostgreSQL's do.
// After a crash they go on from their bounds.
func (e *Engine) saveSequences() {
	e.seqs.mu.Lock()
	defer e.seqs.mu.Unlock()
	for id, st := range e.seqs.state {
		if st.bound == st.last {
			continue
		}
		if err := e.storeSequence(context.Background(), id, st.last, st.called); err != nil {
			e.log.Warn("storing a sequence's position at shutdown", "sequence", id, "error", err)
			return
		}
		st.bound = st.last
	}
}

// forgetSequence drops a dropped sequence's position from memory.
func (e *Engine) forgetSequence(id uint64) {
	e.seqs.mu.Lock()
	defer e.seqs.mu.Unlock()
	delete(e.seqs.state, id)
}

// addInt64 returns a+b and whether it overflowed.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (b > 0 && s < a) || (b < 0 && s > a)
}

// sequenceTypeBounds are the default MINVALUE and MAXVALUE of an
// ascending sequence of each type.
var sequenceTypeBounds = map[string][2]int64{
	"int2": {1, math.MaxInt16}, "int4": {1, math.MaxInt32}, "int8": {1, math.MaxInt64},
}
