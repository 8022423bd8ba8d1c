package arrange

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"freshet/internal/transcript"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata transcripts")

// TestTranscripts runs each file in testdata as a session against one
// trace, a batcher feeding it and named handles. A block is a command
// line, input lines, "----", and the expected output up to a blank line.
// Run with -rewrite to regenerate the expected output after a deliberate
// change, and review the diff.
//
// Commands:
//
//	push                       input: "key val time diff" lines
//	seal <upper>               seal the batcher and insert the batch
//	handle <name> <since>      open a handle
//	set-since <name> <since>   advance a handle
//	close <name>               close a handle
//	read <name>                every update through the handle's cursor
//	count <name> <key> <val> <asOf>...
//	exert <fuel> | merge-all   merge work
//	trace                      since, upper, leases and the spine's levels
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runTranscript(t, file) })
	}
}

func runTranscript(t *testing.T, file string) {
	s := &session{trace: NewTrace(1), batcher: NewBatcher(0), handles: map[string]*Handle{}}
	transcript.Run(t, file, *rewrite, s.run)
}

// session is the state a transcript acts on.
type session struct {
	trace   *Trace
	batcher *Batcher
	handles map[string]*Handle
}

// run executes one command and returns its output, or the error it hit.
func (s *session) run(line string, input []string) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic: %v", r)
		}
	}()
	f := strings.Fields(line)
	num := func(i int) uint64 {
		n, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			panic(err)
		}
		return n
	}
	switch f[0] {
	case "push":
		for _, in := range input {
			u := strings.Fields(in)
			tm, _ := strconv.ParseUint(u[2], 10, 64)
			d, _ := strconv.ParseInt(u[3], 10, 64)
			s.batcher.Push([]byte(u[0]), []byte(u[1]), tm, d)
		}
		return fmt.Sprintf("%d staged, frontier %s", s.batcher.Len(), timeString(s.batcher.Frontier()))
	case "seal":
		b := s.batcher.Seal(num(1))
		if err := s.trace.Insert(b); err != nil {
			return err.Error()
		}
		return fmt.Sprintf("batch %v: %d updates", b.Description(), b.Len())
	case "handle":
		h, err := s.trace.NewHandle(num(2))
		if err != nil {
			return err.Error()
		}
		s.handles[f[1]] = h
		return "ok"
	case "set-since":
		return errString(s.handles[f[1]].SetSince(num(2)))
	case "close":
		return errString(s.handles[f[1]].Close())
	case "read":
		c, err := s.handles[f[1]].Cursor()
		if err != nil {
			return err.Error()
		}
		var lines []string
		for _, u := range contents(c) {
			lines = append(lines, fmt.Sprintf("%s %s @%d %+d", u.key, u.val, u.time, u.diff))
		}
		if len(lines) == 0 {
			return "(empty)"
		}
		return strings.Join(lines, "\n")
	case "count":
		c, err := s.handles[f[1]].Cursor()
		if err != nil {
			return err.Error()
		}
		c.SeekKey([]byte(f[2]))
		if c.KeyValid() && string(c.Key()) == f[2] {
			c.SeekVal([]byte(f[3]))
		}
		var counts []string
		for i := 4; i < len(f); i++ {
			n := int64(0)
			if c.KeyValid() && string(c.Key()) == f[2] && c.ValValid() && string(c.Val()) == f[3] {
				n = c.Count(num(i))
			}
			counts = append(counts, fmt.Sprintf("@%d: %d", num(i), n))
		}
		return strings.Join(counts, ", ")
	case "exert":
		return fmt.Sprintf("used %d", s.trace.Exert(int64(num(1))))
	case "merge-all":
		s.trace.MergeAll()
		return "ok"
	case "trace":
		tr := s.trace
		return fmt.Sprintf("since %s, upper %s, %d leases, %d batches, %d updates\n%s",
			timeString(tr.Since()), timeString(tr.Upper()), tr.Leases(), tr.BatchCount(), tr.spine.Len(), levels(&tr.spine))
	}
	return "unknown command " + f[0]
}

func errString(err error) string {
	if err != nil {
		return err.Error()
	}
	return "ok"
}

// levels shows each non-vacant level of s: a merge as its two inputs'
// ranges and the waiting batches' ranges.
func levels(s *Spine) string {
	var lines []string
	for i := len(s.levels) - 1; i >= 0; i-- {
		lv := s.levels[i]
		var parts []string
		if lv.merge != nil {
			parts = append(parts, fmt.Sprintf("merging %s + %s", brief(lv.merge.older), brief(lv.merge.newer)))
		}
		for _, b := range lv.waiting {
			parts = append(parts, brief(b))
		}
		if len(parts) > 0 {
			lines = append(lines, fmt.Sprintf("level %d: %s", i, strings.Join(parts, ", ")))
		}
	}
	return strings.Join(lines, "\n")
}

func brief(b *Batch) string {
	d := b.Description()
	return fmt.Sprintf("[%s,%s)s%s:%d", timeString(d.Lower), timeString(d.Upper), timeString(d.Since), b.Len())
}
