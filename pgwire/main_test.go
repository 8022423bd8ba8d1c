package pgwire

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that the tests leave no goroutine behind: every
// connection goroutine, reader and session ends when its connection or
// the server does.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
