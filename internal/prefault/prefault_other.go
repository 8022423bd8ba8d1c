//go:build !linux

package prefault

func populate(p, n uintptr) {}
