package expr

import "fmt"

// SizePrettyText is pg_size_pretty(bytes): bytes below 10 kB as bytes,
// then kB, MB, GB, TB and PB, each unit taken while the value stays
// below 20 of the next, rounded half away from zero, as PostgreSQL 15
// prints sizes.
func SizePrettyText(size int64) string {
	const limit = 10 * 1024
	const limit2 = limit*2 - 1
	abs := func(x int64) int64 {
		if x < 0 {
			return -x
		}
		return x
	}
	if abs(size) < limit {
		return fmt.Sprintf("%d bytes", size)
	}
	// One extra bit is kept for rounding.
	size >>= 9
	units := []string{"kB", "MB", "GB", "TB", "PB"}
	for i, unit := range units {
		if abs(size) < limit2 || i == len(units)-1 {
			half := int64(1)
			if size < 0 {
				half = -1
			}
			return fmt.Sprintf("%d %s", (size+half)/2, unit)
		}
		size >>= 10
	}
	return ""
}
