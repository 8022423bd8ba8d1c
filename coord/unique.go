package coord

import (
	"bytes"
	"errors"
	"strings"

	"freshet/catalog"
	"freshet/repr"
	"freshet/sqlerr"
)

// Unique keys (PRIMARY KEY, UNIQUE, CREATE UNIQUE INDEX) are enforced
// here, on every write, at a cost that follows the size of the write and
// not of the table.
//
// Each key of each table keeps, in memory, the number of committed rows
// that hold each key value (uniqueKey.counts): the key columns' datums
// packed as a row, which is canonical, so equal values are equal bytes.
// A value with a NULL column is not counted: NULLs never conflict, as in
// PostgreSQL. A write computes its net change per key value (rows added
// minus rows removed, over the whole statement or transaction), and is
// refused with 23505 if a value it adds would then be held by more than
// one row. So a statement is judged on its final state: UPDATE t SET
// a = a + 1 passes where PostgreSQL, which checks row by row, fails.
//
// Writes to one table are serialized only as far as their key values
// meet. Under Engine.mu, just before it takes its timestamp, a write
// judges its deltas against the committed counts plus the additions of
// the writes already in flight (timestamped, not yet durable), and
// reserves its own values (uniqueKey.inflight). When the write is
// settled, in timestamp order, its reservation goes and, if it is
// durable, its deltas join the counts; a write that fails the check
// reserves nothing, and one that fails to commit only drops its
// reservation, so the counts always match the table's log. A write whose
// verdict hangs on a write in flight (a value in flight is removed, or
// added, by another write) waits for that write to settle, as
// PostgreSQL waits for a conflicting transaction, and is judged again.
//
// The counts are built from the table's log when the table's dataflow
// is built at startup, and by CREATE UNIQUE INDEX, which refuses a table
// whose rows already repeat a value.

// uniqueKey is one unique key of a table, as the engine enforces it.
type uniqueKey struct {
	def catalog.UniqueKey
	// counts maps each key value to the number of committed rows that
	// hold it; zero counts are deleted. Guarded by Engine.mu.
	// Invariant: every count is at most 1 (the key holds).
	counts map[string]int64
	// inflight holds the values that writes in flight change. Guarded by
	// Engine.mu.
	inflight map[string]inflightValue
}

// inflightValue is what the writes in flight do to one key value: how
// many of them change it, and how many rows they add in all.
type inflightValue struct {
	writes int
	adds   int64
}

func newUniqueKey(def catalog.UniqueKey) *uniqueKey {
	return &uniqueKey{def: def, counts: map[string]int64{}, inflight: map[string]inflightValue{}}
}

// tableKeys is one table's unique keys. A tableKeys is never changed
// once published in Engine.keys: DDL replaces it (the uniqueKeys in it,
// and their counts, carry over), so a writer may compute its deltas from
// one without the engine's lock.
type tableKeys struct {
	columns []catalog.Column
	keys    []*uniqueKey
}

// with returns tk with key k added.
func (tk *tableKeys) with(k *uniqueKey) *tableKeys {
	return &tableKeys{columns: tk.columns, keys: append(tk.keys[:len(tk.keys):len(tk.keys)], k)}
}

// without returns tk without the key of index id, or nil if no key is
// left.
func (tk *tableKeys) without(id uint64) *tableKeys {
	out := &tableKeys{columns: tk.columns}
	for _, k := range tk.keys {
		if k.def.Index != id {
			out.keys = append(out.keys, k)
		}
	}
	if len(out.keys) == 0 {
		return nil
	}
	return out
}

// nullDatum is the encoding of NULL in a row.
var nullDatum = []byte(repr.PackRow(repr.Null))

// keyValues splits a row of a table of n columns into its datums'
// encodings, in raw[:0], for keyValue.
func keyValues(row repr.Row, n int, raw [][]byte) ([][]byte, error) {
	raw = raw[:0]
	for it := row.Iter(); !it.Done(); {
		d, err := it.NextRaw()
		if err != nil {
			return raw, err
		}
		raw = append(raw, d)
	}
	if len(raw) != n {
		return raw, sqlerr.AssertionFailedf("a row of %d columns written to a table of %d", len(raw), n)
	}
	return raw, nil
}

// keyValue appends to buf[:0] the value of key cols in a row split by
// keyValues: the key columns' encodings side by side, which is the row of
// those datums. ok is false if a key column is NULL.
func keyValue(raw [][]byte, cols []int, buf []byte) (value []byte, ok bool) {
	buf = buf[:0]
	for _, c := range cols {
		if bytes.Equal(raw[c], nullDatum) {
			return buf, false
		}
		buf = append(buf, raw[c]...)
	}
	return buf, true
}

// keyDelta is what a write does to one unique key: for each key value,
// the rows it adds minus the rows it removes. Values it leaves as they
// were are absent.
type keyDelta struct {
	key   *uniqueKey
	table *tableKeys
	net   map[string]int64
}

// keyDeltas computes the deltas of writes for the keys in keys, which
// maps the tables that have keys to them. Its cost is linear in the
// write; it needs no lock.
func keyDeltas(keys map[uint64]*tableKeys, writes writeSet) ([]*keyDelta, error) {
	var out []*keyDelta
	byKey := map[*uniqueKey]*keyDelta{}
	var raw [][]byte
	var buf []byte
	for w := range writes.all() {
		tk := keys[w.Table]
		if tk == nil || w.Diff == 0 {
			continue
		}
		var err error
		if raw, err = keyValues(w.Row, len(tk.columns), raw); err != nil {
			return nil, err
		}
		for _, k := range tk.keys {
			var ok bool
			if buf, ok = keyValue(raw, k.def.Columns, buf); !ok {
				continue
			}
			d := byKey[k]
			if d == nil {
				d = &keyDelta{key: k, table: tk, net: map[string]int64{}}
				byKey[k] = d
				out = append(out, d)
			}
			d.net[string(buf)] += w.Diff
		}
	}
	for _, d := range out {
		for v, n := range d.net {
			if n == 0 {
				delete(d.net, v)
			}
		}
	}
	return out, nil
}

// checkDeltasLocked judges deltas against the committed counts, the
// additions of the writes in flight and, in a transaction block, the
// block's own earlier writes (block, may be nil). It returns the
// violation if one is certain; wait reports that the verdict hangs on a
// write in flight. Among violations it reports the first key's smallest
// value, so the error is deterministic.
func checkDeltasLocked(ds []*keyDelta, block *blockKeys) (wait bool, err error) {
	for _, d := range ds {
		var worst []byte
		for v, n := range d.net {
			if n <= 0 {
				continue
			}
			f := d.key.inflight[v]
			total := d.key.counts[v] + f.adds + n
			if block != nil {
				total += block.net[d.key][v]
			}
			if total <= 1 {
				continue
			}
			if f.writes > 0 {
				wait = true
				continue
			}
			if worst == nil || v < string(worst) {
				worst = []byte(v)
			}
		}
		if worst != nil {
			return false, sqlerr.New(sqlerr.UniqueViolation, "duplicate key value violates unique constraint %q", d.key.def.Name).
				WithDetail("Key %s already exists.", d.table.describe(d.key, worst))
		}
	}
	return wait, nil
}

// reserveLocked records deltas as a write in flight.
func reserveLocked(ds []*keyDelta) {
	for _, d := range ds {
		for v, n := range d.net {
			f := d.key.inflight[v]
			f.writes++
			f.adds += max(n, 0)
			d.key.inflight[v] = f
		}
	}
}

// settleLocked ends the reservation of a write's deltas and, if the write
// is durable, adds them to the committed counts.
func settleLocked(ds []*keyDelta, durable bool) {
	for _, d := range ds {
		for v, n := range d.net {
			f := d.key.inflight[v]
			f.writes--
			f.adds -= max(n, 0)
			if f.writes == 0 {
				delete(d.key.inflight, v)
			} else {
				d.key.inflight[v] = f
			}
			if !durable {
				continue
			}
			d.key.count(v, n)
		}
	}
}

// describe is PostgreSQL's "(a, b)=(1, x)" for value of key k.
func (tk *tableKeys) describe(k *uniqueKey, value []byte) string {
	names := make([]string, len(k.def.Columns))
	types := make([]repr.Type, len(k.def.Columns))
	for i, c := range k.def.Columns {
		names[i] = quoteIdentIfNeeded(tk.columns[c].Name)
		types[i] = tk.columns[c].Type
	}
	vals := make([]string, len(types))
	ds, err := repr.Row(value).Datums(types)
	for i := range vals {
		if err != nil {
			vals[i] = "?"
		} else {
			vals[i] = repr.FormatText(ds[i])
		}
	}
	return "(" + strings.Join(names, ", ") + ")=(" + strings.Join(vals, ", ") + ")"
}

// quoteIdentIfNeeded quotes an identifier as PostgreSQL's
// quote_identifier does for names that are not plain lower-case words
// (it also quotes keywords, which this does not know).
func quoteIdentIfNeeded(s string) string {
	plain := s != "" && !(s[0] >= '0' && s[0] <= '9')
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
	}
	if plain {
		return s
	}
	return quoteIdent(s)
}

// countRow adds diff rows of a row split by keyValues to k's counts. It
// returns buf, reused for the key value.
func countRow(k *uniqueKey, raw [][]byte, diff int64, buf []byte) []byte {
	v, ok := keyValue(raw, k.def.Columns, buf)
	if ok {
		// Not k.count: a map index of string(v) converts without
		// allocating, a call's argument would not.
		if c := k.counts[string(v)] + diff; c != 0 {
			k.counts[string(v)] = c
		} else {
			delete(k.counts, string(v))
		}
	}
	return v
}

// count adds n rows to those that hold value v of k; a value no row
// holds is not kept.
func (k *uniqueKey) count(v string, n int64) {
	if c := k.counts[v] + n; c != 0 {
		k.counts[v] = c
	} else {
		delete(k.counts, v)
	}
}

// duplicated returns the smallest value of k that more than one row
// holds, if any.
func (k *uniqueKey) duplicated() (value []byte, ok bool) {
	for v, n := range k.counts {
		if n > 1 && (!ok || v < string(value)) {
			value, ok = []byte(v), true
		}
	}
	return value, ok
}

// keysOfLocked returns the keys of the tables that writes touch, or nil
// if none has any.
func (e *Engine) keysOfLocked(writes writeSet) map[uint64]*tableKeys {
	var out map[uint64]*tableKeys
	last := uint64(0)
	for w := range writes.all() {
		if w.Table == last {
			continue
		}
		last = w.Table
		if tk := e.keys[w.Table]; tk != nil {
			if out == nil {
				out = map[uint64]*tableKeys{}
			}
			out[w.Table] = tk
		}
	}
	return out
}

// admitLocked checks that every table of writes exists and that the
// write keeps every unique key, and reserves its key values; the caller
// settles them (settleLocked) once the write is durable or has failed.
// It releases mu while it computes the deltas and while it waits for a
// write in flight; then it checks the tables again, and computes the
// deltas again if the keys changed meanwhile.
func (e *Engine) admitLocked(writes writeSet) ([]*keyDelta, error) {
	var ds []*keyDelta
	computed, epoch := false, uint64(0)
	for {
		// A write's rows come in runs of one table: each run's table is
		// looked up once.
		checked, last := false, uint64(0)
		for w := range writes.all() {
			if checked && w.Table == last {
				continue
			}
			if e.tables[w.Table] == nil {
				if err := e.failedErr([]uint64{w.Table}); err != nil {
					return nil, err
				}
				return nil, &tableGoneError{table: w.Table}
			}
			checked, last = true, w.Table
		}
		if !computed || epoch != e.keysEpoch {
			keys := e.keysOfLocked(writes)
			if keys == nil {
				return nil, nil
			}
			epoch = e.keysEpoch
			e.mu.Unlock()
			var err error
			ds, err = keyDeltas(keys, writes)
			e.mu.Lock()
			if err != nil {
				return nil, err
			}
			computed = true
			continue
		}
		wait, err := checkDeltasLocked(ds, nil)
		if err != nil {
			return nil, err
		}
		if !wait {
			reserveLocked(ds)
			return ds, nil
		}
		e.fedCond.Wait()
	}
}

// blockKeys is what a transaction block's buffered writes do to unique
// keys: per key, the net rows per value. A statement in a block is
// checked against the committed counts plus these, so that a duplicate
// fails the statement, as in PostgreSQL, and not only the COMMIT. The
// zero value is an empty block.
type blockKeys struct {
	// epoch is Engine.keysEpoch when net was computed: after a change of
	// keys, net is computed again from the block's writes.
	epoch uint64
	net   map[*uniqueKey]map[string]int64
}

// checkBlockWrite checks the writes of a statement in a transaction
// block whose earlier writes are prior, and adds them to bk. It reserves
// nothing: COMMIT writes the block through Write, whose check is the one
// that counts; this one gives the statement PostgreSQL's error early.
func (e *Engine) checkBlockWrite(bk *blockKeys, priorWrites []TableWrite, writes writeSet) error {
	prior := writesOf(priorWrites)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.checkShapesLocked(writes); err != nil {
		return err
	}
	for {
		keys := e.keysOfLocked(writes)
		if keys == nil {
			return nil
		}
		epoch := e.keysEpoch
		var priorKeys map[uint64]*tableKeys
		rebuild := bk.net == nil || bk.epoch != epoch
		if rebuild {
			priorKeys = e.keysOfLocked(prior)
		}
		e.mu.Unlock()
		ds, err := keyDeltas(keys, writes)
		var base []*keyDelta
		if err == nil && rebuild {
			base, err = keyDeltas(priorKeys, prior)
		}
		e.mu.Lock()
		if err != nil {
			// Rows of a shape an ALTER TABLE changed meanwhile.
			if serr := e.checkShapesLocked(writes); serr != nil {
				return serr
			}
			return err
		}
		if e.keysEpoch != epoch {
			continue
		}
		if rebuild {
			*bk = blockKeys{epoch: epoch, net: map[*uniqueKey]map[string]int64{}}
			bk.add(base)
		}
		if _, err := checkDeltasLocked(ds, bk); err != nil {
			return err
		}
		bk.add(ds)
		return nil
	}
}

// add adds deltas to the block's.
func (bk *blockKeys) add(ds []*keyDelta) {
	for _, d := range ds {
		m := bk.net[d.key]
		if m == nil {
			m = map[string]int64{}
			bk.net[d.key] = m
		}
		for v, n := range d.net {
			if m[v] += n; m[v] == 0 {
				delete(m, v)
			}
		}
	}
}

// setKeysLocked publishes table id's keys (nil: none) and tells writers
// that computed deltas from the old ones to compute them again.
func (e *Engine) setKeysLocked(id uint64, tk *tableKeys) {
	if tk == nil {
		delete(e.keys, id)
	} else {
		e.keys[id] = tk
	}
	e.keysEpoch++
}

// forgetKeysLocked removes the keys that object o brings: all of a
// table's, or a unique index's own.
func (e *Engine) forgetKeysLocked(o *catalog.Object) {
	switch {
	case o.Kind == catalog.Table:
		if e.keys[o.ID] != nil {
			e.setKeysLocked(o.ID, nil)
		}
	case o.Kind == catalog.Index && o.Unique:
		if tk := e.keys[o.On]; tk != nil {
			e.setKeysLocked(o.On, tk.without(o.ID))
		}
	}
}

// addUniqueIndexLocked enforces the key of unique index o from now on:
// it counts the key values of the table's rows, from the table's log, and
// fails with 23505 if a value is duplicated. No write to the table may be
// in flight (the caller waits for them) and mu is held throughout, so the
// log is the table's whole content and no write can slip in between.
func (e *Engine) addUniqueIndexLocked(o *catalog.Object) error {
	t := e.cat.Get(o.On)
	if t == nil || t.Kind != catalog.Table {
		return sqlerr.AssertionFailedf("unique index %s on %d, which is not a table", o.Name, o.On)
	}
	k := newUniqueKey(catalog.UniqueKey{Name: o.Name, Columns: o.KeyColumns, Index: o.ID})
	var raw [][]byte
	var buf []byte
	err := e.store.ScanTable(t.ID, func(_ uint64, row []byte, diff int64) error {
		var err error
		if raw, err = keyValues(row, len(t.Columns), raw); err != nil {
			return err
		}
		buf = countRow(k, raw, diff, buf)
		return nil
	})
	if err != nil {
		return err
	}
	tk := e.keys[t.ID]
	if tk == nil {
		tk = &tableKeys{columns: t.Columns}
	}
	tk = tk.with(k)
	if v, dup := k.duplicated(); dup {
		return sqlerr.New(sqlerr.UniqueViolation, "could not create unique index %q", o.Name).
			WithDetail("Key %s is duplicated.", tk.describe(k, v))
	}
	e.setKeysLocked(t.ID, tk)
	return nil
}

// tableGoneError is a write's table dropped between the write's planning
// and its timestamp. The engine knows the table only by id; the session
// that planned the write names it (namedTableError).
type tableGoneError struct{ table uint64 }

func (e *tableGoneError) Error() string { return "relation does not exist" }

// namedTableError turns a tableGoneError into PostgreSQL's 42P01 with the
// table's name, taken from names; any other error is returned as it is.
func namedTableError(err error, names map[uint64]string) error {
	var gone *tableGoneError
	if !errors.As(err, &gone) {
		return err
	}
	if n, ok := names[gone.table]; ok {
		return sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", n)
	}
	return sqlerr.New(sqlerr.UndefinedTable, "a table the statement writes was dropped while it ran")
}

// noteName records the name of a table the block writes.
func (tx *transaction) noteName(id uint64, name string) {
	if tx.names == nil {
		tx.names = map[uint64]string{}
	}
	tx.names[id] = name
}
