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
