//go:build invariants

package sqlerr

// Invariants reports whether the module was built with the invariants
// tag, which switches on expensive checks and makes AssertionFailedf
// panic. Build or test with -tags invariants to enable it.
const Invariants = true
