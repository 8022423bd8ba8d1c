// Package arrange holds collections as arrangements: immutable, sorted,
// consolidated batches of updates, kept in a spine that merges them a
// little at a time, and shared with readers through leased handles, in
// the model of differential dataflow.
//
// The data structures are batches, spines, traces and handles; the
// operators on them are Arrange, Join, Reduce, Count, Sum, Distinct,
// Threshold, TopK and Consolidate (arranged.go, join.go, reduce.go,
// aggregates.go). Exported arrangements are shared between dataflows
// through a reference-checked Registry (registry.go, import.go).
//
// # Glossary
//
//   - Update: (key, val, time, diff). Keys and vals are byte strings
//     ordered by bytes.Compare; a time is a uint64; a diff is an int64
//     signed count.
//   - Time: totally ordered. math.MaxUint64 is reserved for Done, the
//     empty frontier, and is never the time of an update; MaxTime is the
//     largest valid time.
//   - Consolidated: no two updates share (key, val, time) and no diff is
//     zero.
//   - Accumulation at q: the sum of the diffs with time <= q for one
//     (key, val); what a reader means by "the count at q".
//   - Description {Lower, Upper, Since}: a batch holds exactly the updates
//     with Lower <= time < Upper, and if Since > Lower its times may have
//     been advanced, so its accumulations are exact only at q >= Since.
//   - Batch: an immutable, sorted, consolidated run of updates in flat
//     columns (a three-level trie: keys, vals per key, updates per val).
//   - Builder: writes a batch from updates that arrive in order.
//   - Batcher: takes updates in any order and seals, at an upper, a batch
//     of those before it, keeping the rest. It stages updates in
//     fixed-size chunks, each sorted as it fills, and merges them as
//     chains; its merges can be done a piece at a time.
//   - Chunk, chain: a chunk is a run of staged updates with the arena of
//     their bytes; a chain is a sorted, consolidated list of chunks.
//   - Cursor: walks keys, then vals within a key, then the (time, diff)
//     history of a val. BatchCursor walks one batch; CursorList merges
//     several.
//   - Logical compaction: advancing every time t to max(t, since) (clamped
//     into the batch) and consolidating. It loses nothing at q >= since
//     and is what lets memory fall.
//   - Since: the frontier of logical compaction. A spine's since is where
//     new merges compact to; a trace's since is the least lease.
//   - Spine: the list of a trace's batches, in levels by size class
//     (powers of two) like an LSM tree, merged pairwise with fuel.
//   - Fuel: a budget of merge work. One unit is one input update a merge
//     consumes.
//   - Trace: a spine plus the leases of its readers.
//   - Handle: one reader's lease on a trace, at the handle's since.
//   - Window: [fOld, fNew), the times an operator processes when its
//     input frontier advances from fOld to fNew.
//   - Export, import: an arrangement registered under a GlobalID by the
//     dataflow that made it, and read by later dataflows, each holding a
//     lease; an export is not dropped while imported.
//
// # Invariants
//
//   - Every batch is sorted by (key, val, time) and consolidated; keys
//     increase strictly, vals strictly within a key, times strictly within
//     a val; no key lacks vals and no val lacks updates; every time lies in
//     [Lower, Upper) of its description, and at or after its Since clamped
//     into that range. Batch.validate checks all of it; the builder runs
//     it on every batch under the invariants build tag.
//   - A spine's batches tile time: each batch's Lower is the previous
//     batch's Upper, and the spine's upper is the last batch's Upper.
//   - A merge combines two batches adjacent in time; readers see the two
//     inputs until it completes, then the output alone.
//   - An Insert does a bounded amount of merge work: for each merge in
//     progress, fuel proportional to the inserted batch's size class, plus
//     the roll-up of the smaller levels into it (see Spine.Insert). No
//     insert finishes a merge that earlier inserts left short of fuel.
//   - A trace's since never decreases, is at most the least live lease,
//     and the spine never compacts past it, so every handle reads exact
//     accumulations at or after its own since.
//   - A handle releases its lease exactly once.
//
// A trace, its spine and its handles belong to one goroutine (the worker
// that owns the shard) and take no locks. Batches are immutable and may be
// shared freely once built.
//
// The tests compare everything with from-scratch sums on seeded random
// streams; testdata holds transcripts of sessions with a trace, run by
// TestTranscripts.
//
// # Imports
//
// The standard library and freshet/dataflow, nothing else of ours; it
// must never import the SQL layers (repr, expr, planner, coord, pgwire).
package arrange
