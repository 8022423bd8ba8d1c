package dataflow

import "testing"

// TestGiveSliceMessages: slices given at one time in one run go out as
// one message while they are small (an input's records pushed one by
// one: a message each would cost far more than the records), and as a
// message each once both the buffered and the given slice are large (an
// operator working in pieces: appending would copy the pieces over and
// over). Whatever is buffered leaves once it reaches flushAt records, so
// a run's output is sent as it is made. No record is lost or repeated
// either way.
func TestGiveSliceMessages(t *testing.T) {
	for _, tc := range []struct {
		name             string
		slices, perSlice int
		wantMessages     int
	}{
		{"small", flushAt - 1, 1, 1},
		{"small past flushAt", 2*flushAt + 1, 1, 3},
		{"large past flushAt", 2, flushAt, 2},
		{"large", 4, separateMessage, 4},
		{"small after large", 3, separateMessage - 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in *InputHandle[int]
			var messages, records int
			w := NewWorker(0, NewProcessAllocator(1, nil), func(f Failure) { t.Fatal(f) })
			w.Enqueue(Command{ID: 1, Build: func(b *Builder) {
				h, s := NewInputHandle[int](b, "in")
				in = h
				// gives turns each record it reads into a slice of
				// perSlice records, all at the message's time.
				ob := b.NewOperator("gives")
				input := NewInput(ob, s, Pipeline[int]())
				out, given := NewOutput[int](ob)
				ob.Build(func(_ *Operator, caps []*Capability) Logic {
					caps[0].Release()
					return ScheduleFunc(func() {
						for {
							tm, data, ok := input.Next()
							if !ok {
								return
							}
							for range data {
								out.GiveSlice(tm, make([]int, tc.perSlice))
							}
						}
					})
				})
				cb := b.NewOperator("counts")
				counted := NewInput(cb, given, Pipeline[int]())
				cb.Build(func(_ *Operator, _ []*Capability) Logic {
					return ScheduleFunc(func() {
						for {
							_, data, ok := counted.Next()
							if !ok {
								return
							}
							messages++
							records += len(data)
						}
					})
				})
			}})
			for w.Step() {
			}
			in.Send(1, make([]int, tc.slices)...)
			in.Advance(2)
			for w.Step() {
			}
			if records != tc.slices*tc.perSlice || messages != tc.wantMessages {
				t.Fatalf("%d records in %d messages, want %d in %d", records, messages, tc.slices*tc.perSlice, tc.wantMessages)
			}
		})
	}
}
