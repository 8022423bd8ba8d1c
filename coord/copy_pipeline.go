package coord

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"freshet/expr"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// copySegments runs a text COPY whose data spans more than one segment:
// the session's goroutine reads the data and cuts it into segments
// (segmentReader), a goroutine per segment parses it (segmentParser),
// at most copyInFlight at once, and the session takes their parts in
// the data's order, so that out gets the rows, and the split the parts,
// in the order copyRows would give them. Data that fits one segment is
// read again by copyRows: a goroutine would cost more than it saves.
//
// The error is the one copyRows would report: that of the first line, in
// the data's order, that fails, or the read's failure if every line
// before it reads; what later segments made of their lines is dropped,
// as are the segments after an end marker. A context that ends stops
// the parses; every goroutine started has returned when copySegments
// does.
func (s *Session) copySegments(ctx context.Context, st *planner.Copy, src *textCopySource, zone *repr.Zone, defaults []expr.Scalar, rowNumber *int64, out *copyParts) error {
	if src.done {
		// The header line was the data's last.
		return nil
	}
	sr := newSegmentReader(src.br)
	seg, err := sr.next()
	if err != nil {
		return copyLineError(st, err, src.line, -1)
	}
	if seg.last {
		src.reread(seg.data)
		return copyRows(st, src, zone, defaults, rowNumber, out)
	}
	p := newSegmentPipeline(ctx, st, zone, defaults, sr)
	defer p.close()
	// line counts the lines taken so far, the header's included, as
	// textCopySource counts them.
	line := src.line
	for {
		p.start(seg)
		if seg.last {
			_, err := p.takeAll(&line, out)
			return err
		}
		// The segments parsed go on at once, to the split; the session
		// waits for the oldest only when as many are in flight as may
		// be.
		for len(p.jobs) > 0 && (len(p.jobs) >= p.limit || p.jobs[0].parsed()) {
			if end, err := p.take(&line, out); err != nil || end {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return readError(ctx, err)
		}
		if seg, err = sr.next(); err != nil {
			// The lines read before the failure go first.
			if end, err := p.takeAll(&line, out); err != nil || end {
				return err
			}
			return copyLineError(st, err, line, -1)
		}
	}
}

// copyInFlight returns how many segments a COPY parses at once: one per
// core, and one more, so that a core whose parse is done has the next
// segment to start while the session reads.
func copyInFlight() int { return max(2, runtime.GOMAXPROCS(0)+1) }

// segmentPipeline runs the parses of one COPY's segments, each on a
// goroutine of its own. Only the session's goroutine calls its methods.
//
// Invariant: jobs are the segments started and not yet taken, in the
// data's order, at most limit; each has a parser of its own, and idle
// holds the parsers no job has. Every goroutine started has returned
// once close returns.
type segmentPipeline struct {
	ctx      context.Context
	st       *planner.Copy
	zone     *repr.Zone
	defaults []expr.Scalar
	reader   *segmentReader
	limit    int

	jobs []*segmentJob
	idle []*segmentParser
	wg   sync.WaitGroup
	// stop tells the parses to stop: set when the context ends, and by
	// close.
	stop atomic.Bool
	// unwatch stops the context's watch; watched is closed once a watch
	// that started has set stop.
	unwatch func() bool
	watched chan struct{}
}

// segmentJob is one segment's parse. rows is the parse's result, to be
// read once done is closed.
type segmentJob struct {
	seg    textSegment
	parser *segmentParser
	done   chan struct{}
	rows   segmentRows
}

// parsed reports whether the job's parse is done.
func (j *segmentJob) parsed() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

func newSegmentPipeline(ctx context.Context, st *planner.Copy, zone *repr.Zone, defaults []expr.Scalar, sr *segmentReader) *segmentPipeline {
	p := &segmentPipeline{ctx: ctx, st: st, zone: zone, defaults: defaults, reader: sr, limit: copyInFlight(),
		watched: make(chan struct{})}
	p.unwatch = context.AfterFunc(ctx, func() {
		p.stop.Store(true)
		close(p.watched)
	})
	return p
}

// start parses seg on a goroutine of its own.
func (p *segmentPipeline) start(seg textSegment) {
	job := &segmentJob{seg: seg, done: make(chan struct{})}
	if k := len(p.idle); k > 0 {
		job.parser, p.idle = p.idle[k-1], p.idle[:k-1]
	} else {
		job.parser = newSegmentParser(p.st, p.zone, p.defaults)
	}
	p.jobs = append(p.jobs, job)
	p.wg.Add(1)
	go p.parse(job)
}

// parse is the goroutine of job's parse.
func (p *segmentPipeline) parse(job *segmentJob) {
	defer p.wg.Done()
	defer close(job.done)
	defer func() {
		// A fault here fails the COPY, as it would on the session's
		// goroutine, and not the server.
		if r := recover(); r != nil {
			job.rows = segmentRows{err: sqlerr.AssertionFailedf("parsing the COPY's rows: %v", r)}
		}
	}()
	job.rows = job.parser.parse(job.seg, &p.stop)
}

// take waits for the oldest segment's parse and gives its parts to out.
// *line counts the lines before the segment, and then after it. It
// returns whether the segment ended the data, or the error that ends the
// COPY.
func (p *segmentPipeline) take(line *int, out *copyParts) (bool, error) {
	job := p.jobs[0]
	p.jobs = slices.Delete(p.jobs, 0, 1)
	<-job.done
	p.idle = append(p.idle, job.parser)
	p.reader.recycle(job.seg)
	rows := job.rows
	switch {
	case rows.err != nil:
		at := 0
		if rows.line > 0 {
			at = *line + rows.line
		}
		return false, copyLineError(p.st, rows.err, at, rows.field)
	case rows.stopped:
		// Only the context's end stops a parse the session still
		// takes.
		return false, readError(p.ctx, p.ctx.Err())
	}
	for _, part := range rows.parts {
		out.add(part)
	}
	*line += rows.lines
	return rows.end, nil
}

// takeAll takes every segment in flight, in order, up to one that ends
// the data or fails, as take does.
func (p *segmentPipeline) takeAll(line *int, out *copyParts) (bool, error) {
	for len(p.jobs) > 0 {
		if end, err := p.take(line, out); err != nil || end {
			return end, err
		}
	}
	return false, nil
}

// close stops the parses still under way and waits for them, and for
// the context's watch.
func (p *segmentPipeline) close() {
	if !p.unwatch() {
		<-p.watched
	}
	p.stop.Store(true)
	p.wg.Wait()
}

// perStatement reports whether defaults, the defaults a COPY binds
// (copyDefaults), are the same for every row, and so can be computed on
// any goroutine in any order: made of constants and functions of them
// alone. random() and gen_random_uuid() draw a value per row, numbered
// by the rows' order, nextval acts on its sequence per row, and the
// session's functions that remain (a relation's size) read the engine;
// a COPY with any of them reads its rows one at a time, in order.
// now() and the session's values are constants by then (bindScalars).
func perStatement(defaults []expr.Scalar) bool {
	for _, d := range defaults {
		if d != nil && !constantScalar(d) {
			return false
		}
	}
	return true
}

// constantScalar reports whether s is made of literals and functions of
// them that neither draw per row nor read the session or the engine.
// Any scalar it does not know is not.
func constantScalar(s expr.Scalar) bool {
	switch n := s.(type) {
	case expr.Literal:
		return true
	case expr.Cast:
		return constantScalar(n.Arg)
	case expr.CallUnary:
		return constantScalar(n.Arg)
	case expr.CallBinary:
		return constantScalar(n.Left) && constantScalar(n.Right)
	case expr.CallVariadic:
		switch {
		case n.Func == expr.Random, n.Func == expr.GenRandomUUID, n.Func == expr.Now, n.Func.IsSession():
			return false
		}
		for _, a := range n.Args {
			if !constantScalar(a) {
				return false
			}
		}
		return true
	case expr.If:
		return constantScalar(n.Cond) && constantScalar(n.Then) && constantScalar(n.Else)
	}
	return false
}
