package coord

import (
	"strings"
	"testing"

	"freshet/pgwire"
	"freshet/planner"
	"freshet/sqlerr"
)

// version() and server_version name one PostgreSQL release.
func TestVersionsAgree(t *testing.T) {
	if planner.PostgresVersion != pgwire.ServerVersion {
		t.Fatalf("version() follows %s, server_version is %s", planner.PostgresVersion, pgwire.ServerVersion)
	}
	if got := serverVersionNum(); !strings.HasPrefix(got, "1500") {
		t.Fatalf("server_version_num %s", got)
	}
}

// Every setting is found under any spelling, and SET's checks give the
// canonical value or refuse what Freshet cannot honour.
func TestSettingChecks(t *testing.T) {
	for _, tc := range []struct {
		name, value     string
		canonical, want string
		code            string
	}{
		{"timezone", "utc", "TimeZone", "UTC", ""},
		{"TIMEZONE", "Etc/UTC", "TimeZone", "Etc/UTC", ""},
		{"TimeZone", "america/new_york", "TimeZone", "America/New_York", ""},
		{"TimeZone", "-7", "TimeZone", "<-07>+07", ""},
		{"TimeZone", "Mars/Olympus", "", "", "22023"},
		{"datestyle", "iso", "DateStyle", "ISO, MDY", ""},
		{"DateStyle", "SQL, DMY", "", "", "0A000"},
		{"client_encoding", "unicode", "client_encoding", "UTF8", ""},
		{"search_path", `"$user", public`, "search_path", `"$user", public`, ""},
		{"search_path", "pg_catalog, public", "search_path", "pg_catalog, public", ""},
		{"search_path", "other, public", "search_path", "other, public", ""},
		{"search_path", `"unclosed, public`, "", "", "22023"},
		{"extra_float_digits", "2", "extra_float_digits", "2", ""},
		{"extra_float_digits", "x", "", "", "22023"},
		{"transaction_isolation", "read committed", "transaction_isolation", "serializable", ""},
		{"transaction_isolation", "chaos", "", "", "22023"},
		{"default_transaction_read_only", "on", "", "", "0A000"},
		{"standard_conforming_strings", "off", "", "", "0A000"},
		{"server_encoding", "LATIN1", "", "", "55P02"},
		{"session_authorization", "other", "", "", "55P02"},
		{"no_such", "1", "", "", "42704"},
		{"my.custom", "Some Value", "my.custom", "Some Value", ""},
	} {
		canonical, v, err := checked(tc.name, tc.value)
		code := ""
		if err != nil {
			code = sqlerr.Code(err)
		}
		if code != tc.code || err == nil && (canonical != tc.canonical || v != tc.want) {
			t.Errorf("SET %s = %q: got %q %q %v, want %q %q %s", tc.name, tc.value, canonical, v, err, tc.canonical, tc.want, tc.code)
		}
	}
}

// The settings a session reports are exactly those pgwire sends at
// startup, with the same values, so ParameterStatus never names a
// setting twice or in two spellings.
func TestReportedMatchesStartup(t *testing.T) {
	st := pgwire.Startup{User: "me", Database: "d", ApplicationName: "app"}
	got, want := defaultSettings(st).reported(), pgwire.DefaultParameters(st)
	if len(got) != len(want) {
		t.Fatalf("reported %v, startup %v", got, want)
	}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s: reported %q, startup %q", name, got[name], v)
		}
	}
}

// The settings a client sends at startup, as parameters or in options,
// are the session's starting values when they are valid, and what RESET
// goes back to.
func TestStartupSettings(t *testing.T) {
	st := pgwire.Startup{User: "u", Params: map[string]string{
		"TimeZone": "Europe/Berlin", "DateStyle": "ISO", "extra_float_digits": "3",
		"statement_timeout": "not a duration",
	}, Options: `-c search_path=pg_catalog,\ public --application-name=opt -cidle_in_transaction_session_timeout=5s`}
	ss := defaultSettings(st)
	for name, want := range map[string]string{
		"TimeZone": "Europe/Berlin", "DateStyle": "ISO, MDY", "extra_float_digits": "3",
		"statement_timeout": "0", "search_path": "pg_catalog, public", "application_name": "opt",
		"idle_in_transaction_session_timeout": "5s",
	} {
		if got := ss[name]; got != want {
			t.Errorf("%s starts as %q, want %q", name, got, want)
		}
	}
	if _, v, err := resetValue("timezone", st); err != nil || v != "Europe/Berlin" {
		t.Errorf("RESET TimeZone gives %q, %v; want Europe/Berlin", v, err)
	}
}
