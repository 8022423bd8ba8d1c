package sqllogic

import (
	"context"
	"net"

	"freshet/coord"
	"freshet/pgwire"
)

// Server is a whole Freshet server run in this process on a data
// directory of its own: the fresh server a file runs on.
type Server struct {
	// Addr is the address it accepts connections on, host:port.
	Addr   string
	cancel context.CancelFunc
	done   chan error
	engine *coord.Engine
}

// StartServer opens (or reopens) a server on dir with the given number
// of dataflow workers, listening on a free port of 127.0.0.1.
func StartServer(dir string, workers int) (*Server, error) {
	ctx, cancel := context.WithCancel(context.Background())
	engine, err := coord.Open(ctx, coord.Config{Workers: workers, DataDir: dir}, coord.Rebuild(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	if err := coord.RestoreDefaults(engine); err != nil {
		engine.Close()
		cancel()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		engine.Close()
		cancel()
		return nil, err
	}
	s := &Server{Addr: ln.Addr().String(), cancel: cancel, done: make(chan error, 1), engine: engine}
	srv := &pgwire.Server{Backend: coord.NewBackend(engine)}
	go func() { s.done <- srv.Serve(ctx, ln) }()
	return s, nil
}

// Close stops accepting connections, ends the sessions and closes the
// engine.
func (s *Server) Close() {
	s.cancel()
	<-s.done
	s.engine.Close()
}
