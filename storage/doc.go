// Package storage is the durable part of the server: catalog records,
// table update logs, the timestamp oracle's upper bound and a few server
// settings, kept in an embedded pebble database in one local directory.
//
// Every change goes to one committer goroutine: a Txn from Commit or one
// of its shorthands (Write, PutCatalog, DeleteCatalog, DropTable,
// PutMeta), a raise of the timestamp upper from AllocateTimestamps, a
// rewrite of a table log from CompactTable. The committer gathers the
// changes that callers have queued into one pebble batch and commits it
// with one fsync (group commit); each caller returns when the sync that
// covers its change has completed. The package is the only writer of its directory: a
// directory lock keeps a second server out.
//
// # Glossary
//
//   - Update: one (row, time, diff) of a table's collection; diff is a
//     signed count. Rows are opaque bytes here (repr.Row above).
//   - Update log: a table's updates in (time, seq) order, as written.
//     Accumulating the diffs of the updates at times <= t gives the
//     table's contents at t.
//   - Txn: one atomic, durable change: catalog puts and deletes, settings,
//     table drops and every update of one write transaction at one time.
//     A table both dropped and written in one Txn has its log replaced
//     by the Txn's updates (ALTER TABLE's rewrite of every row).
//   - Group: the Txns the committer commits in one pebble batch and one
//     sync. A group succeeds or fails as a whole.
//   - Seq: a number the committer gives each block of updates so that
//     keys never collide, even for two Txns at the same time.
//   - Since: the compaction frontier of a table log. After
//     CompactTable(id, since), every update at a time <= since has been
//     consolidated into one update per row at time since.
//   - Timestamp upper: the greatest time the timestamp oracle may have
//     handed out. It is persisted before the oracle uses the times below
//     it, so that after a restart every new time can be made greater.
//   - Poisoned: the state of a Store after a failed commit. Nothing is
//     known about what reached the disk, so the store refuses all further
//     work but Close; a restart recovers from the write-ahead log.
//
// # Key layout
//
// All integers are big-endian, so that bytes.Compare orders keys as the
// numbers they hold:
//
//	0x01 name                    storage's own records (format, next seq,
//	                             timestamp upper); uint64 values
//	0x02 name                    settings of the server (PutMeta)
//	0x03 id                      catalog record of object id
//	0x04 table time seq          a block of updates of one Txn; value:
//	                             0x00, then per update a varint diff,
//	                             a uvarint length and the row
//
// A table's log is the key range [0x04 table, 0x04 table+1), scanned in
// time order, then seq order, then in the order of each block. A block
// holds up to 512 consecutive updates of one table (and about 32 KB of
// rows), so that a bulk load costs pebble one key per block, not one per
// row. Format version 1 wrote one update per key (value: varint diff,
// then row); version 2 reads those values too, and records a version 1
// store as version 2 when it opens it.
//
// # Invariants
//
//   - Acknowledged means durable: Commit returns nil only after the batch
//     that holds its Txn was synced to the write-ahead log.
//   - Atomic: a Txn is either wholly present after a crash or wholly
//     absent; it never spans two batches.
//   - Poison is final: once a commit fails, every caller of that group and
//     every later call but Close returns a 58030 io_error. Nothing is
//     acknowledged after a failed sync, because after a failed fsync the
//     kernel may have dropped the dirty pages it could not write.
//   - Keys are never overwritten by a later Txn: the committer assigns
//     seqs from a counter whose bound is persisted, raised ahead of need,
//     in the same batch as any key that would pass it; a restart counts
//     on from the bound.
//   - LoadTimestampUpper is at least every time passed to a successful
//     AllocateTimestamps and every time of a durable update: the
//     committer raises the persisted upper in the batch of any update
//     above it.
//   - A Txn handed to the committer is waited for whatever its context
//     does, so an error from Commit never hides a Txn that was written,
//     except an I/O error, after which the outcome is unknown and the
//     store is poisoned.
//
// This package imports only the standard library, pebble and
// freshet/sqlerr: it knows nothing of SQL types, plans or dataflows.
package storage
