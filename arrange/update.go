package arrange

import "hash/maphash"

// Update is one change to a collection: diff copies of (key, val) at time.
// A collection in a dataflow is a dataflow.Stream[Update] whose every
// update's time is at or after the time of the message carrying it.
type Update struct {
	Key, Val []byte
	Time     uint64
	Diff     int64
}

// hashSeed is fixed per process: every worker must route a key to the same
// worker, and all workers live in one process.
var hashSeed = maphash.MakeSeed()

// KeyHash returns the hash that routes key to its worker: arrangements
// are sharded by key, so that updates to a key and every reader of it
// meet on one worker.
func KeyHash(key []byte) uint64 { return maphash.Bytes(hashSeed, key) }

// UpdateHash is KeyHash of an update's key, for dataflow.Exchange.
func UpdateHash(u Update) uint64 { return KeyHash(u.Key) }

// Chunk is updates sent as one record, all at the time the chunk is
// sent at (their Time is not read): Updates, then the rows of Rows that
// Pick picks, in its order, each a key with no value and diff 1.
//
// A pick costs 4 bytes beside a row a bulk load has already packed,
// where an Update costs 64, and holds no pointer for the collector to
// scan.
type Chunk struct {
	Updates []Update
	Rows    Rows
	Pick    []uint32
}

// Rows is rows packed back to back: row i is Data[Ends[i-1]:Ends[i]]
// (from 0 for the first).
type Rows struct {
	Data []byte
	Ends []uint32
}

// Row returns row i, its capacity ending with it: an append to it
// copies, and never writes over the next row.
func (r Rows) Row(i int) []byte {
	from := uint32(0)
	if i > 0 {
		from = r.Ends[i-1]
	}
	return r.Data[from:r.Ends[i]:r.Ends[i]]
}

// Len returns the number of rows.
func (r Rows) Len() int { return len(r.Ends) }
