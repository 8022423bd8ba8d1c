// Package planner turns SQL text into plans: pg_query parses it, binding
// resolves names and types into a high-level plan (HIR) whose scalars
// may hold correlated subqueries, and lowering decorrelates that into
// expr relations that every part of the system can run incrementally.
// Statements that are not queries plan to the Go types of statement.go.
//
// # Pipeline
//
//	input bounds (input_bounds.go) -> Parse (pg_query) -> bind (binder,
//	bind_*.go) -> HIR rewrites (rewrite_hir.go) -> lower (lower.go) ->
//	expr rewrites (rewrite.go)
//
// # Glossary
//
//   - HIR: the bound plan (hir.go). Relations mirror expr's; scalars may
//     be subqueries (EXISTS, scalar, ANY/ALL) and refer to enclosing
//     queries' columns as (level, index), level 0 being the current one.
//   - Outer relation: when a relation is lowered, the distinct rows of
//     the enclosing queries' columns it uses; the lowered relation starts
//     with them (invariant I1 of research/sql-planning.md).
//   - Domain: the outer relation of a subquery, Distinct(Project_K O) of
//     the relation O it is nested in, K the columns of O it uses.
//   - Finishing: ORDER BY, LIMIT and OFFSET of a top-level query, applied
//     to the rows of a read rather than in the dataflow.
//
// # Invariants
//
//   - Every plan the planner returns passes expr.Check and has no
//     dependent join: subqueries are equijoins on domains, and NULLs
//     match in those joins only where SQL says they do.
//   - An error carries its SQLSTATE and, where PostgreSQL gives one, its
//     position; anything the planner does not support is 0A000 naming
//     the feature, never a wrong answer.
//   - Constant expressions are evaluated while planning, as PostgreSQL
//     folds them: SELECT 1/0 FROM e fails even when e is empty.
//   - Rewrites preserve results exactly; the tests run every query with
//     and without them.
//   - pg_query's C parser only sees text within the input bounds
//     (MaxStatementLength, MaxNestingDepth), so that no text can
//     overflow its stack and kill the process; and no plan larger than
//     MaxPlanNodes, counted as a tree, is rewritten or lowered.
//
// # Scope
//
// Queries: FROM with tables, views (inlined), materialized views and
// sources, subqueries (LATERAL too), WITH (not RECURSIVE), VALUES and
// generate_series over integers; inner, cross, LEFT, RIGHT and FULL
// joins with ON, USING or NATURAL; WHERE; GROUP BY and HAVING with
// count, sum, avg, min, max, bool_and, bool_or and every (DISTINCT and
// FILTER too); DISTINCT and DISTINCT ON; ORDER BY, LIMIT, OFFSET; UNION,
// INTERSECT and EXCEPT with or without ALL; scalar, EXISTS, IN, NOT IN,
// ANY and ALL subqueries anywhere a value may be, correlated or not.
// What the planner cannot express yet (window functions, LIKE, most
// named functions, arrays, row values, WITH RECURSIVE, grouping sets, a
// LIMIT that is not a constant, ...) is 0A000 naming it.
//
// # Scalars expr lacks
//
// Param, the errors that plans raise at run time (a scalar subquery's
// second row, 21000; a NULL in a NOT NULL column, 23502) and assignment
// casts to varchar(n) are scalars of this package that implement
// expr.Scalar (scalars.go). They belong in expr: Param as a scalar that
// BindParams replaces, the errors as an error scalar, the cast as a flag
// on expr.Cast.
//
// # Imports
//
// The planner imports expr, repr and sqlerr, and pg_query. It declares
// the Catalog it consumes (catalog.go); it must not import catalog,
// compute, coord or the runtime.
package planner
