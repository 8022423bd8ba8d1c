package dataflow

// Unary adds an operator with one input and one output. ctor receives the
// operator and its initial capability (which it must keep or release) and
// returns the schedule function.
func Unary[I, O any](s Stream[I], name string, pact Pact[I], ctor func(op *Operator, cap *Capability, in *Input[I], out *Output[O]) func()) Stream[O] {
	return unary(s, name, pact, true, ctor)
}

// unary is Unary, for an operator that a move of its input frontier
// activates or not (OperatorBuilder.SetNotify).
func unary[I, O any](s Stream[I], name string, pact Pact[I], notify bool, ctor func(op *Operator, cap *Capability, in *Input[I], out *Output[O]) func()) Stream[O] {
	ob := s.b.NewOperator(name)
	ob.SetNotify(notify)
	in := NewInput(ob, s, pact)
	out, stream := NewOutput[O](ob)
	ob.Build(func(op *Operator, caps []*Capability) Logic {
		return ScheduleFunc(ctor(op, caps[0], in, out))
	})
	return stream
}

// Map applies f to every record, through pact.
func Map[I, O any](s Stream[I], name string, pact Pact[I], f func(I) O) Stream[O] {
	return unary(s, name, pact, false, func(_ *Operator, cap *Capability, in *Input[I], out *Output[O]) func() {
		cap.Release()
		return func() {
			for {
				t, data, ok := in.Next()
				if !ok {
					return
				}
				res := make([]O, len(data))
				for i, r := range data {
					res[i] = f(r)
				}
				out.GiveSlice(t, res)
			}
		}
	})
}

// Filter keeps the records for which keep is true, through pact.
func Filter[T any](s Stream[T], name string, pact Pact[T], keep func(T) bool) Stream[T] {
	return unary(s, name, pact, false, func(_ *Operator, cap *Capability, in *Input[T], out *Output[T]) func() {
		cap.Release()
		return func() {
			for {
				t, data, ok := in.Next()
				if !ok {
					return
				}
				kept := data[:0]
				for _, r := range data {
					if keep(r) {
						kept = append(kept, r)
					}
				}
				out.GiveSlice(t, kept)
			}
		}
	})
}

// Concat merges two streams of the same type into one.
func Concat[T any](a, b Stream[T], name string) Stream[T] {
	ob := a.b.NewOperator(name)
	ob.SetNotify(false)
	ia := NewInput(ob, a, Pipeline[T]())
	ib := NewInput(ob, b, Pipeline[T]())
	out, s := NewOutput[T](ob)
	ob.Build(func(_ *Operator, caps []*Capability) Logic {
		caps[0].Release()
		return ScheduleFunc(func() {
			for _, in := range []*Input[T]{ia, ib} {
				for {
					t, data, ok := in.Next()
					if !ok {
						break
					}
					out.GiveSlice(t, data)
				}
			}
		})
	})
	return s
}

// Inspect calls f on every record and its time, on the worker's
// goroutine, and passes the records on.
func Inspect[T any](s Stream[T], name string, f func(t uint64, r T)) Stream[T] {
	return unary(s, name, Pipeline[T](), false, func(_ *Operator, cap *Capability, in *Input[T], out *Output[T]) func() {
		cap.Release()
		return func() {
			for {
				t, data, ok := in.Next()
				if !ok {
					return
				}
				for _, r := range data {
					f(t, r)
				}
				out.GiveSlice(t, data)
			}
		}
	})
}
