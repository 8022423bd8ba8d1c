// Package freshet is the root of the Freshet module: a Postgres-wire SQL
// server that keeps materialized views fresh by maintaining every view
// as an incremental dataflow. The packages below it are laid out in the
// layers that deps_test.go states; this package holds only that test.
package freshet
