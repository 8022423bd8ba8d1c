package arrange

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// batcherWorkload is a set of updates shaped like one the batcher sees
// in hydration, held as fixed-size records over one byte arena.
type batcherWorkload struct {
	name  string
	bytes []byte
	upds  []struct{ key, keyLen, val, valLen uint32 }
}

func (w *batcherWorkload) add(key, val []byte) {
	off := uint32(len(w.bytes))
	w.bytes = append(w.bytes, key...)
	w.bytes = append(w.bytes, val...)
	w.upds = append(w.upds, struct{ key, keyLen, val, valLen uint32 }{off, uint32(len(key)), off + uint32(len(key)), uint32(len(val))})
}

// benchInt appends v the way a row encodes a non-negative integer datum:
// a tag byte that counts the big-endian bytes that follow. The arrange
// package may not import the row encoding; this mirrors its shape only.
func benchInt(buf []byte, v uint64) []byte {
	n := 0
	for x := v; x > 0; x >>= 8 {
		n++
	}
	buf = append(buf, byte(0x29+n))
	for i := n - 1; i >= 0; i-- {
		buf = append(buf, byte(v>>(8*i)))
	}
	return buf
}

// batcherWorkloads returns n updates of each shape:
//   - join-key: orders keyed by customer (10,000 customers), the val the
//     whole order row (id, customer, an amount), as a join arranges them;
//   - group-key: contributions keyed by one of 50 regions, the val an
//     aggregate's index and a limb, as accumulation arranges them, so
//     that most updates consolidate;
//   - random16: distinct random 16-byte keys and 8-byte vals;
//   - sorted-rows: order rows (id, customer, an amount) by ascending id,
//     the key the whole row and the val empty, as a table's arrangement
//     sees a load by generate_series.
func batcherWorkloads(n int) []*batcherWorkload {
	rng := rand.New(rand.NewPCG(7, 8))
	join := &batcherWorkload{name: "join-key"}
	group := &batcherWorkload{name: "group-key"}
	random := &batcherWorkload{name: "random16"}
	sorted := &batcherWorkload{name: "sorted-rows"}
	var key, val []byte
	for i := range n {
		id := uint64(rng.IntN(1 << 30))
		cust := uint64(rng.IntN(10_000) + 1)
		key = benchInt(key[:0], cust)
		val = benchInt(val[:0], id)
		val = benchInt(val, cust)
		val = append(val, 0x53, byte(rng.IntN(100)), byte(rng.IntN(100)))
		join.add(key, val)

		key = benchInt(key[:0], uint64(rng.IntN(50)))
		val = binary.BigEndian.AppendUint16(val[:0], uint16(i%2))
		val = append(val, byte(rng.IntN(2)))
		group.add(key, val)

		key = binary.BigEndian.AppendUint64(key[:0], rng.Uint64())
		key = binary.BigEndian.AppendUint64(key, rng.Uint64())
		val = binary.BigEndian.AppendUint64(val[:0], rng.Uint64())
		random.add(key, val)

		key = benchInt(key[:0], uint64(i+1))
		key = benchInt(key, cust)
		key = append(key, 0x53, byte(rng.IntN(100)), byte(rng.IntN(100)))
		sorted.add(key, nil)
	}
	return []*batcherWorkload{join, group, random, sorted}
}

// BenchmarkBatcher measures arranging a burst of updates at one time, as
// a replayed table or a join's output reaches a batcher in hydration:
// n pushes, then one seal. One op is one update.
func BenchmarkBatcher(b *testing.B) {
	const n = 1 << 20
	for _, w := range batcherWorkloads(n) {
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			var batcher *Batcher
			for i := 0; b.Loop(); i++ {
				if i%n == 0 {
					if batcher != nil {
						batcher.Seal(Done)
					}
					batcher = NewBatcher(0)
				}
				u := w.upds[i%n]
				batcher.Push(w.bytes[u.key:u.key+u.keyLen], w.bytes[u.val:u.val+u.valLen], 0, 1)
			}
			batcher.Seal(Done)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
		})
	}
}

// BenchmarkSortStaged measures sorting one batcher's staged updates, as
// consolidation does: with the batcher's sort ("radix") and with a
// comparison sort alone ("pdq"), on a chunk (8K updates), 64K and 1M.
// One op is one update.
func BenchmarkSortStaged(b *testing.B) {
	for _, n := range []int{chunkLen, 1 << 16, 1 << 20} {
		for _, w := range batcherWorkloads(n) {
			c := &chunk{least: Done}
			for _, u := range w.upds {
				key := w.bytes[u.key : u.key+u.keyLen]
				c.push(key, w.bytes[u.val:u.val+u.valLen], keyPrefix(key), 0, 1)
			}
			unsorted := slices.Clone(c.recs)
			for _, sorter := range []struct {
				name string
				sort func([]staged)
			}{
				{"radix", func(s []staged) { sortStaged(s, c.arena) }},
				{"pdq", func(s []staged) {
					slices.SortFunc(s, func(x, y staged) int { return compareStaged(c.arena, x, c.arena, y) })
				}},
			} {
				b.Run(fmt.Sprintf("%s/n=%d/%s", w.name, n, sorter.name), func(b *testing.B) {
					work := make([]staged, n)
					sorted := 0
					for b.Loop() {
						b.StopTimer()
						copy(work, unsorted)
						b.StartTimer()
						sorter.sort(work)
						sorted += n
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(sorted), "ns/update")
				})
			}
		}
	}
}
