package coord

import (
	"slices"
	"strconv"
	"strings"

	"freshet/pgwire"
	"freshet/repr"
	"freshet/sqlerr"
)

// A setting is a configuration parameter a session can SHOW, and maybe
// SET. Names are case-insensitive, as in PostgreSQL: every spelling
// reaches one setting, which SHOW, SHOW ALL and ParameterStatus report
// under PostgreSQL's canonical spelling (TimeZone, DateStyle).
//
// Freshet honours a setting or refuses it: a value it cannot honour is
// 0A000, never stored and silently ignored. The few settings that are
// accepted and ignored say so in their doc (and in docs/sessions.md).
type setting struct {
	name        string
	description string
	// reported settings go to the client in ParameterStatus.
	reported bool
	// def is the value a session starts with.
	def func(pgwire.Startup) string
	// check validates a value for SET and returns the value to store; nil
	// means the setting cannot be changed (55P02).
	check func(v string) (string, error)
}

// settings are the parameters Freshet knows, by lower-case name.
var settings = map[string]*setting{}

func init() {
	fixed := func(v string) func(pgwire.Startup) string { return func(pgwire.Startup) string { return v } }
	anyValue := func(v string) (string, error) { return v, nil }
	for _, s := range []*setting{
		{name: "application_name", reported: true, description: "The name the client application gave.",
			def: func(s pgwire.Startup) string { return s.ApplicationName }, check: anyValue},
		{name: "client_encoding", reported: true, description: "The client's character set; only UTF8 is supported.",
			def: fixed("UTF8"), check: oneOf("client_encoding", "UTF8", "UTF8", "UTF-8", "UNICODE")},
		{name: "DateStyle", reported: true, description: "The output format of dates; only ISO, MDY is supported.",
			def: fixed("ISO, MDY"), check: oneOf("DateStyle", "ISO, MDY", "ISO", "ISO, MDY", "MDY, ISO", "MDY")},
		{name: "default_transaction_isolation", description: "The isolation level of new transactions: always serializable (any level may be asked for; serializable is stronger).",
			def: fixed("serializable"), check: isolation},
		{name: "default_transaction_read_only", reported: true, description: "Whether new transactions are read-only; only off is supported.",
			def: fixed("off"), check: oneOf("default_transaction_read_only", "off", "off", "false", "0", "no")},
		{name: "extra_float_digits", description: "Float output: Freshet always prints the shortest exact form, which PostgreSQL prints for values 1 to 3.",
			def: fixed("1"), check: extraFloatDigits},
		{name: "in_hot_standby", reported: true, description: "Whether the server is a hot standby: never.", def: fixed("off")},
		{name: "integer_datetimes", reported: true, description: "Whether datetimes are integer-based: always.", def: fixed("on")},
		{name: "IntervalStyle", reported: true, description: "The output format of intervals; only postgres is supported.",
			def: fixed("postgres"), check: oneOf("IntervalStyle", "postgres", "postgres")},
		{name: "is_superuser", reported: true, description: "Whether the session's user is a superuser.", def: fixed("off")},
		{name: "lc_collate", description: "Text collation: byte order.", def: fixed("C")},
		{name: "lc_ctype", description: "Character classification: Unicode.", def: fixed("C.UTF-8")},
		{name: "max_identifier_length", description: "The longest identifier, in bytes.", def: fixed("63")},
		{name: "search_path", description: "Sets the schema search order for names that are not schema-qualified.",
			def: fixed(`"$user", public`), check: searchPath},
		{name: "server_encoding", reported: true, description: "The server's character set.", def: fixed("UTF8")},
		{name: "server_version", reported: true, description: "The PostgreSQL version the server follows.", def: fixed(pgwire.ServerVersion)},
		{name: "server_version_num", description: "The PostgreSQL version the server follows, as a number.", def: fixed(serverVersionNum())},
		{name: "session_authorization", reported: true, description: "The session's user; it cannot be changed.",
			def: func(s pgwire.Startup) string { return s.User }},
		{name: "standard_conforming_strings", reported: true, description: "Whether backslashes are literal in '...' strings; only on is supported.",
			def: fixed("on"), check: oneOf("standard_conforming_strings", "on", "on", "true", "1", "yes")},
		{name: "statement_timeout", description: "The longest a statement may run before it is canceled with 57014 (0: no limit).",
			def: fixed("0"), check: durationSetting("statement_timeout")},
		{name: "lock_timeout", description: "The longest a statement may wait for a lock (an engine lock another statement holds) before it is canceled with 55P03 (0: no limit).",
			def: fixed("0"), check: durationSetting("lock_timeout")},
		{name: "idle_in_transaction_session_timeout", description: "The longest a client may stay silent inside a transaction block before its connection is ended with 25P03 (0: no limit).",
			def: fixed("0"), check: durationSetting("idle_in_transaction_session_timeout")},
		{name: "TimeZone", reported: true, description: "The time zone in which timestamps with time zone are printed, read and taken apart.",
			def: fixed("UTC"), check: timeZone},
		{name: "transaction_isolation", description: "The current transaction's isolation level: always serializable.",
			def: fixed("serializable"), check: isolation},
	} {
		settings[strings.ToLower(s.name)] = s
	}
}

// durationSetting accepts a time setting's value as PostgreSQL reads it
// (milliseconds, or a number with a unit) and stores it as given.
func durationSetting(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		if _, err := pgwire.ParseDurationSetting(name, v); err != nil {
			return "", err
		}
		return strings.TrimSpace(v), nil
	}
}

// serverVersionNum is server_version as PostgreSQL's number: 15.0 is 150000.
func serverVersionNum() string {
	major, minor, _ := strings.Cut(pgwire.ServerVersion, ".")
	m, _ := strconv.Atoi(major)
	n, _ := strconv.Atoi(minor)
	return strconv.Itoa(m*10000 + n)
}

// lookupSetting finds the setting called name, whatever its case. A name
// with a dot is a custom setting (an extension's or an application's),
// which PostgreSQL lets anyone set and which Freshet stores as given.
func lookupSetting(name string) (*setting, bool, error) {
	if s, ok := settings[strings.ToLower(name)]; ok {
		return s, false, nil
	}
	if strings.Contains(name, ".") {
		return nil, true, nil
	}
	return nil, false, sqlerr.New(sqlerr.UndefinedObject, "unrecognized configuration parameter %q", name)
}

// oneOf accepts the values that mean canonical (compared ignoring case
// and spaces after commas) and refuses the others with 0A000.
func oneOf(name, canonical string, accepted ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		norm := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(v)), ", ", ",")
		for _, a := range accepted {
			if norm == strings.ReplaceAll(strings.ToLower(a), ", ", ",") {
				return canonical, nil
			}
		}
		return "", sqlerr.New(sqlerr.FeatureNotSupported, "%s %q is not supported: only %q is", name, v, canonical)
	}
}

// timeZone accepts a zone of the zone database, or a number of hours
// east of UTC, and stores the zone's name (repr.LoadZone).
func timeZone(v string) (string, error) {
	z, err := repr.LoadZone(v)
	if err != nil {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": %q", v)
	}
	return z.Name(), nil
}

// isolation accepts every level PostgreSQL knows; transactions run
// serializable, which is at least what any of them asks for.
func isolation(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "serializable", "repeatable read", "read committed", "read uncommitted":
		return "serializable", nil
	}
	return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"transaction_isolation\": %q", v)
}

func extraFloatDigits(v string) (string, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"extra_float_digits\": %q", v)
	}
	if n < -15 || n > 3 {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "%d is outside the valid range for parameter \"extra_float_digits\" (-15 .. 3)", n)
	}
	if n < 1 {
		return "", sqlerr.New(sqlerr.FeatureNotSupported, "extra_float_digits %d is not supported: floats are always printed exactly", n)
	}
	return strconv.Itoa(n), nil
}

// searchPath accepts a comma-separated list of schema names, quoted or
// not (Session.searchPath reads it); schemas that do not exist are
// skipped where names are looked up, as in PostgreSQL.
func searchPath(v string) (string, error) {
	for _, part := range strings.Split(v, ",") {
		p := strings.TrimSpace(part)
		if strings.HasPrefix(p, `"`) {
			if _, err := strconv.Unquote(p); err != nil {
				return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"search_path\": %q", v).
					WithDetail("List syntax is invalid.")
			}
		}
	}
	return v, nil
}

// sessionSettings are a session's settings' values, by canonical name
// (or, for custom settings, the name as given in lower case).
type sessionSettings map[string]string

// defaultSettings returns the settings a session starts with: those the
// client sent in its startup message (as parameters or as -c name=value
// in options), where they are settings that can be SET and their values
// are valid, and the defaults for the rest. PostgreSQL ends a
// connection whose startup holds an invalid value; Freshet starts it
// with the default, and SHOW tells which.
func defaultSettings(st pgwire.Startup) sessionSettings {
	given := startupSettings(st)
	out := sessionSettings{}
	for _, s := range settings {
		out[s.name] = s.start(st, given)
	}
	return out
}

// start returns the value the setting starts with in a session whose
// startup message gave the settings given (by lower-case name).
func (s *setting) start(st pgwire.Startup, given map[string]string) string {
	if v, ok := given[strings.ToLower(s.name)]; ok && s.check != nil {
		if c, err := s.check(v); err == nil {
			return c
		}
	}
	return s.def(st)
}

// startupSettings returns the settings of a startup message by
// lower-case name: its parameters, then the -c name=value and
// --name=value of its options, which win.
func startupSettings(st pgwire.Startup) map[string]string {
	out := map[string]string{}
	for k, v := range st.Params {
		out[strings.ToLower(k)] = v
	}
	words := optionWords(st.Options)
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-c" && i+1 < len(words):
			i++
			w = words[i]
		case strings.HasPrefix(w, "-c"):
			w = w[2:]
		case strings.HasPrefix(w, "--"):
			w = w[2:]
		default:
			continue
		}
		if k, v, ok := strings.Cut(w, "="); ok {
			out[strings.ToLower(strings.ReplaceAll(k, "-", "_"))] = v
		}
	}
	return out
}

// optionWords splits the options parameter at spaces, a backslash
// escaping the character after it, as PostgreSQL splits it.
func optionWords(s string) []string {
	var words []string
	var w strings.Builder
	have := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			have = true
		case c == ' ' || c == '\t' || c == '\n':
			if have {
				words = append(words, w.String())
				w.Reset()
				have = false
			}
		default:
			w.WriteByte(c)
			have = true
		}
	}
	if have {
		words = append(words, w.String())
	}
	return words
}

// reported returns the settings that go to the client in ParameterStatus.
func (ss sessionSettings) reported() map[string]string {
	out := map[string]string{}
	for _, s := range settings {
		if s.reported {
			out[s.name] = ss[s.name]
		}
	}
	return out
}

// value returns setting name's value, as SHOW and current_setting do.
func (ss sessionSettings) value(name string) (canonical, v string, err error) {
	s, custom, err := lookupSetting(name)
	if err != nil {
		return "", "", err
	}
	if custom {
		v, ok := ss[strings.ToLower(name)]
		if !ok {
			return "", "", sqlerr.New(sqlerr.UndefinedObject, "unrecognized configuration parameter %q", name)
		}
		return strings.ToLower(name), v, nil
	}
	return s.name, ss[s.name], nil
}

// checked returns the canonical name and the value to store for SET name
// = v.
func checked(name, v string) (string, string, error) {
	s, custom, err := lookupSetting(name)
	if err != nil {
		return "", "", err
	}
	if custom {
		return strings.ToLower(name), v, nil
	}
	if s.check == nil {
		return "", "", sqlerr.New(sqlerr.CantChangeRuntimeParam, "parameter %q cannot be changed", s.name)
	}
	v, err = s.check(v)
	return s.name, v, err
}

// resetValue returns the canonical name and the value RESET name gives
// back: the default, or for a custom setting the empty string (it stays
// defined, as in PostgreSQL).
func resetValue(name string, st pgwire.Startup) (canonical, v string, err error) {
	s, custom, err := lookupSetting(name)
	if err != nil {
		return "", "", err
	}
	if custom {
		return strings.ToLower(name), "", nil
	}
	if s.check == nil {
		return "", "", sqlerr.New(sqlerr.CantChangeRuntimeParam, "parameter %q cannot be changed", s.name)
	}
	return s.name, s.start(st, startupSettings(st)), nil
}

// all returns SHOW ALL's rows: name, setting, description, sorted by
// name ignoring case as PostgreSQL does. Custom settings are left out,
// as PostgreSQL leaves them out.
func (ss sessionSettings) all() [][]string {
	var rows [][]string
	for _, s := range settings {
		rows = append(rows, []string{s.name, ss[s.name], s.description})
	}
	slices.SortFunc(rows, func(a, b []string) int { return strings.Compare(strings.ToLower(a[0]), strings.ToLower(b[0])) })
	return rows
}

// zone returns the session time zone (the TimeZone setting).
func (s *Session) zone() *repr.Zone {
	z, err := repr.LoadZone(s.settings["TimeZone"])
	if err != nil {
		// SET checked the name; it cannot have gone.
		return repr.UTC
	}
	return z
}

// storedZone is the session time zone as a catalog object keeps it:
// empty for UTC.
func (s *Session) storedZone() string {
	if z := s.zone(); !z.IsUTC() {
		return z.Name()
	}
	return ""
}

// settingsIn returns the settings a session starts with, in time zone
// zone (a catalog object's TimeZone; empty is UTC): those of a session
// that plans a stored object again.
func settingsIn(zone string) sessionSettings {
	ss := defaultSettings(pgwire.Startup{})
	if zone != "" {
		ss["TimeZone"] = zone
	}
	return ss
}
