package storage

import (
	"errors"

	"github.com/cockroachdb/pebble/v2"

	"freshet/sqlerr"
)

// Open opens the store in directory dir, creating it if it does not
// exist, and starts its committer. It fails with F0001 lock_file_exists if
// another Store, in this process or another, has dir open, with 58030
// io_error if the directory cannot be created or read, and with XX001
// data_corrupted if dir holds a store this version cannot read.
func Open(dir string, opts Options) (*Store, error) {
	if dir == "" {
		return nil, invalidf("storage directory must not be empty")
	}
	fs := opts.fs()
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return nil, ioError(err, "could not create storage directory %q", dir)
	}
	lock, err := pebble.LockDirectory(dir, fs)
	if err != nil {
		return nil, sqlerr.Wrapf(err, sqlerr.LockFileExists, "could not lock storage directory %q", dir).
			WithHint("Is another server running with this data directory?")
	}
	s := &Store{
		lock:          lock,
		fs:            fs,
		dir:           dir,
		onSync:        opts.OnSync,
		log:           opts.logger().With("component", "storage", "dir", dir),
		queue:         make(chan *request, maxGroupTxns),
		stop:          make(chan struct{}),
		committerDone: make(chan struct{}),
	}
	s.db, err = pebble.Open(dir, pebbleOptions(fs, lock, pebbleLogger{log: s.log, fatal: s.poisonWith}))
	if err != nil {
		_ = lock.Close()
		return nil, ioError(err, "could not open storage in %q", dir)
	}
	if err := s.load(); err != nil {
		_ = s.db.Close()
		_ = lock.Close()
		return nil, err
	}
	go s.runCommitter()
	s.log.Info("storage opened", "timestamp_upper", s.upper.Load(), "next_seq", s.nextSeq)
	return s, nil
}

// load reads storage's own records into s, writing them first if the
// store is new.
func (s *Store) load() error {
	format, found, err := s.getUint64(internalKey(internalFormat))
	if err != nil {
		return err
	}
	if !found {
		if err := s.initialize(); err != nil {
			return err
		}
		format = formatVersion
	}
	if format == formatSingleUpdates {
		if err := s.db.Set(internalKey(internalFormat), encodeUint64(formatVersion), pebble.Sync); err != nil {
			return ioError(err, "could not record the storage format")
		}
		if err := s.poisonErr(); err != nil {
			return err
		}
		format = formatVersion
	}
	if format != formatVersion {
		return corruptf("storage format %d is not supported", format).
			WithDetail("This server reads storage format %d.", formatVersion)
	}
	if s.nextSeq, _, err = s.getUint64(internalKey(internalNextSeq)); err != nil {
		return err
	}
	s.seqLimit = s.nextSeq
	upper, _, err := s.getUint64(internalKey(internalTimestampUpper))
	if err != nil {
		return err
	}
	s.upper.Store(upper)
	return nil
}

// initialize writes the records of a new store, durably. It refuses a
// store that holds keys but no format record, which no version wrote.
func (s *Store) initialize() error {
	it, err := s.db.NewIter(nil)
	if err != nil {
		return ioError(err, "could not read storage")
	}
	nonEmpty := it.First()
	err = errors.Join(it.Error(), it.Close())
	if err != nil {
		return ioError(err, "could not read storage")
	}
	if nonEmpty {
		return corruptf("storage has no format record")
	}
	b := s.db.NewBatch()
	defer b.Close()
	for _, rec := range []struct {
		name  string
		value uint64
	}{
		{internalFormat, formatVersion},
		{internalNextSeq, 0},
		{internalTimestampUpper, 0},
	} {
		if err := b.Set(internalKey(rec.name), encodeUint64(rec.value), nil); err != nil {
			return ioError(err, "could not initialize storage")
		}
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return ioError(err, "could not initialize storage")
	}
	if err := s.poisonErr(); err != nil {
		return err
	}
	return nil
}

// getUint64 reads a uint64 record; found is false if key is absent.
func (s *Store) getUint64(key []byte) (v uint64, found bool, err error) {
	value, found, err := s.get(key)
	if err != nil || !found {
		return 0, found, err
	}
	v, ok := decodeUint64(value)
	if !ok {
		return 0, false, corruptf("storage record %q holds %d bytes, want 8", key[1:], len(value))
	}
	return v, true, nil
}

// get returns a copy of the value of key; found is false if key is
// absent.
func (s *Store) get(key []byte) (value []byte, found bool, err error) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, ioError(err, "could not read storage")
	}
	value = append([]byte(nil), v...)
	if err := closer.Close(); err != nil {
		return nil, false, ioError(err, "could not read storage")
	}
	return value, true, nil
}
