package storage

import "context"

// AllocateTimestamps makes durable that the timestamp oracle may hand out
// times up to and including upTo. The oracle calls it ahead of use (say,
// with now plus a second) and hands out a time only once an upper at or
// above it is durable; after a restart it starts above
// LoadTimestampUpper, so that every new time is greater than any handed
// out before a crash. An upTo at or below the persisted upper returns at
// once: the upper never goes down.
func (s *Store) AllocateTimestamps(ctx context.Context, upTo uint64) error {
	if upTo <= s.upper.Load() {
		if err := s.enter(); err != nil {
			return err
		}
		s.exit()
		return nil
	}
	return s.submit(ctx, &request{upper: upTo})()
}

// LoadTimestampUpper returns the persisted timestamp upper: at least
// every upTo of a successful AllocateTimestamps and every time of a
// durable update. A new store's upper is 0.
func (s *Store) LoadTimestampUpper() (uint64, error) {
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.exit()
	return s.upper.Load(), nil
}
