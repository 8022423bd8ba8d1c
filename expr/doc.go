// Package expr is the plan IR that the planner produces and compute
// renders: relational expressions over collections (multisets of rows
// that change over time) and scalar expressions over the columns of one
// row, with their evaluation.
//
// # Glossary
//
//   - Relation: a node of a relational plan (Constant, Get, LocalGet, Let,
//     Map, Filter, Project, FlatMap, Join, Reduce, TopK, Distinct, Negate,
//     Threshold, Union). Its output is a multiset of rows: a row may occur
//     any number of times, and Negate and Union make counts that are
//     differences.
//   - Scalar: an expression over one row's columns (Column, Literal,
//     CallUnary, CallBinary, CallVariadic, If, Cast).
//   - ColumnType: a SQL type plus whether the column may be NULL.
//   - Equivalence: a set of scalars a Join requires equal, compared as
//     encoded bytes, so NULL matches NULL (IS NOT DISTINCT FROM). SQL's
//     `a = b`, where NULL never matches, is a Filter (or an equivalence
//     plus `a IS NOT NULL`).
//
// # Invariants
//
//   - Column references are positions in the input row, checked by Check.
//   - Evaluation is deterministic: the same row gives the same result or
//     the same error, so a view and a query agree (errors carry their
//     SQLSTATE; the planner decides where a row error goes).
//   - Filters keep a row only where every predicate is TRUE: NULL and
//     FALSE both drop it.
//   - Interpret, the naive evaluator, is the reference the incremental
//     renderings in compute are tested against.
//   - Typ gives a numeric expression the display scale PostgreSQL gives
//     its values (repr.ArithType, CastType, EitherType): rows drop a
//     numeric's trailing zeros, and decoding with Typ's types restores
//     them.
//
// # Imports
//
// repr, sqlerr and the standard library only: no planner, catalog,
// compute or runtime.
package expr
