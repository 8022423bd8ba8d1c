// Package compute renders expr plans as dataflows on the runtime: every
// relational operator becomes operators of dataflow and arrange, so a view
// is maintained incrementally, in time proportional to the change.
//
// # Glossary
//
//   - Collection: a dataflow.Stream[arrange.Update] whose Key is a packed
//     repr.Row and whose Val is empty; each update adds Diff copies of the
//     row at Time.
//   - Errors: every rendering also has an error collection. A row whose
//     evaluation fails (22012, 22003, …) becomes an error update instead of
//     a data update, so a later retraction of the row retracts the error
//     too. Readers fail while an error is present (research note I4).
//   - Source: how a plan's Get reaches a collection (an imported
//     arrangement, a table's input); supplied by the caller.
//   - Accumulation: a Reduce whose aggregates are all count(*),
//     count(column) and sum of an int2/int4 column, non-DISTINCT, kept
//     as per-group int64 sums (one val per accumulator, its weight in
//     the diff) so that an update costs the same whatever its group's
//     size; other reductions use the generic path (accumulationOf).
//
// # Invariants
//
//   - For every plan P and every time t that every output has passed, the
//     rendered output accumulated at t equals expr.Interpret(P) over the
//     inputs accumulated at t (TestRenderMatchesInterpret).
//   - Keys of arrangements are packed rows of the key scalars, so NULL
//     keys are equal, as the IR's equivalences and groups require.
//
// # Imports
//
// dataflow, arrange, expr, repr and sqlerr; never the catalog, planner or
// coord.
package compute
