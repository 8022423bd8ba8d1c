package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// defaultMemoryLimit is the --memory-limit when none is given: three
// quarters of the machine's memory, leaving room for the Go runtime's
// own overhead, the page cache pebble relies on, and the rest of the
// machine. Zero (no limit) if the machine's memory cannot be read.
func defaultMemoryLimit() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024 / 4 * 3
		}
	}
	return 0
}

// parseSize reads a byte size: a number with an optional unit of B, KB,
// MB, GB or TB (powers of 1024; KiB and the like too).
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.Replace(t, "IB", "B", 1), "B")
	mult := int64(1)
	for i, u := range []string{"K", "M", "G", "T"} {
		if strings.HasSuffix(t, u) {
			mult = int64(1) << (10 * (i + 1))
			t = strings.TrimSuffix(t, u)
			break
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid size %q: want a number of bytes, optionally with KB, MB, GB or TB", s)
	}
	return int64(n * float64(mult)), nil
}
