package pgwire

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"freshet/sqlerr"
)

// ServerVersion is the PostgreSQL version the server reports. Clients
// pick their catalog queries and features by it (psql, pgjdbc, Npgsql),
// so it names the PostgreSQL release whose behaviour the server follows.
const ServerVersion = "15.0"

// DefaultParameters returns the settings PostgreSQL 15 reports in
// ParameterStatus at startup, with the values the server starts a
// session with: UTF8, DateStyle "ISO, MDY", IntervalStyle postgres,
// TimeZone UTC, and the client's user and application_name. A Session
// may start from this map; pgwire sends these values for any name its
// Session.Parameters lacks.
func DefaultParameters(s Startup) map[string]string {
	return map[string]string{
		"application_name":              s.ApplicationName,
		"client_encoding":               "UTF8",
		"DateStyle":                     "ISO, MDY",
		"default_transaction_read_only": "off",
		"in_hot_standby":                "off",
		"integer_datetimes":             "on",
		"IntervalStyle":                 "postgres",
		"is_superuser":                  "off",
		"server_encoding":               "UTF8",
		"server_version":                ServerVersion,
		"session_authorization":         s.User,
		"standard_conforming_strings":   "on",
		"TimeZone":                      "UTC",
	}
}

// startup runs the startup phase: SSL requests (TLS when the server has
// a TLSConfig, refused otherwise), GSS encryption requests (refused), CancelRequests, the protocol version, trust authentication,
// the session, ParameterStatus, BackendKeyData and the first
// ReadyForQuery. It reports whether the connection goes on to serve
// queries.
func (c *conn) startup() bool {
	// A connection that does not finish its startup in time, or while the
	// server shuts down, is dropped.
	c.nc.SetReadDeadline(time.Now().Add(c.srv.startupTimeout()))
	// The socket's deadline, also once TLS reads through it (startTLS
	// changes c.nc while this may run).
	raw := c.nc
	stop := context.AfterFunc(c.ctx, func() { raw.SetReadDeadline(time.Now()) })
	defer func() {
		stop()
		c.nc.SetReadDeadline(time.Time{})
	}()

	negotiated := map[uint32]bool{}
	for {
		pkt, err := readStartupPacket(c.br)
		if err != nil {
			var e *sqlerr.Error
			if errors.As(err, &e) {
				c.end(err)
			} else if err != io.EOF {
				// EOF is common: pgx, refused SSL, reconnects without it.
				c.log.Debug("pgwire: connection ended during startup", "err", err)
			}
			return false
		}
		code := binary.BigEndian.Uint32(pkt)
		switch code {
		case codeSSLRequest, codeGSSENCRequest:
			if len(pkt) != 4 || negotiated[code] || c.tls {
				c.end(protocolViolation("invalid encryption request"))
				return false
			}
			negotiated[code] = true
			if code == codeSSLRequest && c.srv.TLSConfig != nil {
				if !c.startTLS() {
					return false
				}
				continue
			}
			// This encryption is not offered: 'N', and the client goes on
			// in the clear with another startup packet.
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return false
			}
			continue
		case codeCancelRequest:
			c.cancelRequest(pkt)
			return false
		}
		if major, minor := code>>16, code&0xffff; major != 3 {
			c.end(sqlerr.New(sqlerr.FeatureNotSupported,
				"unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", major, minor))
			return false
		}
		params, err := parseStartupParams(pkt[4:])
		if err != nil {
			c.end(err)
			return false
		}
		// Protocol options (_pq_.*) are not supported; a minor version
		// above 0 is answered with the 3.0 this server speaks.
		var unknown []string
		for name := range params {
			if strings.HasPrefix(name, "_pq_.") {
				unknown = append(unknown, name)
				delete(params, name)
			}
		}
		if code != protocol30 || len(unknown) > 0 {
			slices.Sort(unknown)
			c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: protocol30, UnrecognizedOptions: unknown})
		}
		return c.begin(params)
	}
}

// startTLS answers an SSLRequest with 'S' and runs the TLS handshake; the
// connection then reads and writes through TLS. It reports whether the
// handshake succeeded.
func (c *conn) startTLS() bool {
	// The client must wait for the answer before it starts the handshake:
	// bytes already buffered were sent in the clear and could be injected
	// by anyone on the path, so they end the connection.
	if c.br.Buffered() > 0 {
		c.end(protocolViolation("received unencrypted data after SSL request"))
		return false
	}
	if _, err := c.nc.Write([]byte{'S'}); err != nil {
		return false
	}
	tc := tls.Server(c.nc, c.srv.TLSConfig)
	if err := tc.HandshakeContext(c.ctx); err != nil {
		c.log.Info("pgwire: TLS handshake failed", "err", err)
		return false
	}
	c.nc = tc
	c.tls = true
	return true
}

// cancelRequest passes a CancelRequest to the backend. The client gets
// no reply, whatever the outcome.
func (c *conn) cancelRequest(pkt []byte) {
	var m pgproto3.CancelRequest
	if err := m.Decode(pkt); err != nil || len(m.SecretKey) != 4 {
		c.log.Info("pgwire: malformed cancel request")
		return
	}
	key := CancelKey{ProcessID: m.ProcessID, Secret: binary.BigEndian.Uint32(m.SecretKey)}
	do(c, func() error {
		c.srv.Backend.Cancel(key)
		return nil
	})
}

// begin authenticates the client (Server.Auth), creates its session and
// reports the session's parameters and cancel key.
func (c *conn) begin(params map[string]string) bool {
	st := Startup{
		User:            params["user"],
		Database:        params["database"],
		ApplicationName: params["application_name"],
		Options:         params["options"],
		Params:          params,
		RemoteAddr:      c.nc.RemoteAddr(),
	}
	if st.User == "" {
		c.end(sqlerr.New(sqlerr.InvalidAuthorizationSpecification, "no PostgreSQL user name specified in startup packet"))
		return false
	}
	if c.srv.RequireTLS && !c.tls {
		c.end(sqlerr.New(sqlerr.InvalidAuthorizationSpecification,
			"connection without encryption refused for user %q, database %q: the server requires SSL", st.User, params["database"]))
		return false
	}
	if err := c.authenticate(st.User); err != nil {
		c.end(err)
		return false
	}
	super := false
	if su, ok := c.srv.Backend.(Superusers); ok && c.srv.SuperuserReservedConnections > 0 {
		super, _ = call(c, func() (bool, error) { return su.IsSuperuser(st.User), nil })
	}
	if err := c.srv.admit(super); err != nil {
		c.end(err)
		return false
	}
	c.admitted = true
	if st.Database == "" {
		st.Database = st.User
	}
	c.send(&pgproto3.AuthenticationOk{})
	sess, err := call(c, func() (Session, error) { return c.srv.Backend.NewSession(c.ctx, st) })
	if err == nil && sess == nil {
		err = sqlerr.New(sqlerr.InternalError, "backend created no session")
	}
	if err != nil {
		c.end(err)
		return false
	}
	c.sess = sess
	c.params = DefaultParameters(st)
	c.changedParams()
	for _, name := range sortedNames(c.params) {
		c.send(&pgproto3.ParameterStatus{Name: name, Value: c.params[name]})
	}
	key, err := call(c, func() (CancelKey, error) { return sess.CancelKey(), nil })
	if err != nil {
		c.end(err)
		return false
	}
	c.send(&pgproto3.BackendKeyData{ProcessID: key.ProcessID, SecretKey: binary.BigEndian.AppendUint32(nil, key.Secret)})
	c.log.Debug("pgwire: session started", "user", st.User, "database", st.Database)
	return c.readyForQuery()
}

// changedParams records the session's current parameters in c.params
// and returns the names whose values changed, in the order PostgreSQL
// sends them.
func (c *conn) changedParams() []string {
	current, err := call(c, func() (map[string]string, error) { return c.sess.Parameters(), nil })
	if err != nil {
		return nil
	}
	// Most batches change nothing: only the changed names are sorted.
	var changed []string
	for name, v := range current {
		if old, ok := c.params[name]; ok && old == v {
			continue
		}
		c.params[name] = v
		changed = append(changed, name)
	}
	sortNames(changed)
	return changed
}

// sendParameterChanges sends a ParameterStatus for every parameter whose
// value changed since the client last heard of it.
func (c *conn) sendParameterChanges() {
	for _, name := range c.changedParams() {
		c.send(&pgproto3.ParameterStatus{Name: name, Value: c.params[name]})
	}
}

// sortedNames returns the names of params in the order PostgreSQL sends
// them: alphabetical, ignoring case.
func sortedNames(params map[string]string) []string {
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	sortNames(names)
	return names
}

// sortNames sorts parameter names in the order PostgreSQL sends them.
func sortNames(names []string) {
	slices.SortFunc(names, func(a, b string) int {
		if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}
