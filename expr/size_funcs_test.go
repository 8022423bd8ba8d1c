package expr

import "testing"

// TestSizePrettyText checks pg_size_pretty against PostgreSQL 15's
// answers for the same sizes, at each unit's edges.
func TestSizePrettyText(t *testing.T) {
	for size, want := range map[int64]string{
		0: "0 bytes", 10239: "10239 bytes", 10240: "10 kB", -10240: "-10 kB",
		20971519: "20 MB", 20971520: "20 MB", -123456789: "-118 MB",
		9223372036854775807: "8192 PB", 1 << 40: "1024 GB", 21990232555520: "20 TB",
	} {
		if got := SizePrettyText(size); got != want {
			t.Errorf("SizePrettyText(%d) = %q, want %q", size, got, want)
		}
	}
}
