//go:build invariants

package arrange

// invariants switches on the expensive checks: every built batch is
// validated in full. Build with -tags invariants to enable them.
const invariants = true
