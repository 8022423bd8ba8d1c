// Package dataflow is the runtime every view runs on: W workers, each
// holding a copy of every dataflow, exchanging data and progress through
// one Allocator, in the model of timely dataflow.
//
// # Glossary
//
//   - Time: a uint64; times are totally ordered. math.MaxUint64 is
//     reserved for Done.
//   - Frontier: the least time that may still appear at a location, or
//     Done. A frontier passes t when it is greater than t.
//   - Location: an operator input (target) or output (source). Locations
//     are numbered densely per dataflow in topological order.
//   - Capability: a permit for one operator on one worker to send on one
//     output at times at or after its time; it counts +1 there.
//   - Message: records at one time on one channel to one worker; it counts
//     +1 at its target while in flight.
//   - Progress batch: one worker's consolidated count changes for one
//     dataflow in one step, sent whole to every worker.
//   - Step: one synchronous pass of a worker (Worker.Step): commands,
//     messages, operators, drops, progress, completion. It visits only
//     the dataflows on the worker's attention list, those with something
//     to do, so idle dataflows cost a step nothing.
//   - Channel: (dataflow id, index). Index 0 carries progress; data
//     channels are numbered in build order, so no counter can drift.
//
// # Invariants
//
//   - A frontier never passes a time at which a capability is held or a
//     message is in flight (the progress protocol's safety): every
//     increment a worker publishes is justified by a decrement in the same
//     batch or by a capability it announced earlier, batches travel whole,
//     and each worker's batches reach every worker in order.
//   - Build is one atomic step of a worker. Messages for a dataflow not yet
//     built are held; messages for one that ended are discarded and
//     counted.
//   - After a dataflow ends on a worker, that worker sends nothing more for
//     it: to its peers it went silent, as if it had crashed behind a
//     partition, which the protocol already tolerates.
//   - Dataflow ids increase and are never reused.
//   - A panic in an operator fails that dataflow on that worker only.
//
// docs/dataflow-lifecycle.md states the lifecycle rules, why drop is
// safe, and the test that checks each claim.
//
// This package imports nothing of the SQL layers: it knows records only
// as Go values of a stream's type.
package dataflow
