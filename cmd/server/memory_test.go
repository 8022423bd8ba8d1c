package main

import "testing"

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1024": 1024, "2KB": 2048, "512MiB": 512 << 20, "1.5GB": 3 << 29, " 8 gb ": 8 << 30} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "lots", "-1GB", "1XB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) accepted", bad)
		}
	}
	if defaultMemoryLimit() <= 0 {
		t.Error("no default memory limit on a machine with /proc/meminfo")
	}
}
