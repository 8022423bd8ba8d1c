package coord

import (
	"strconv"
	"strings"

	"freshet/planner"
	"freshet/repr"
)

// pgSettingsColumns are pg_settings' columns, PostgreSQL 15's.
var pgSettingsColumns = []planner.RelationColumn{
	col("name", repr.Text, false), col("setting", repr.Text, false),
	col("unit", repr.Text, true), col("category", repr.Text, false),
	col("short_desc", repr.Text, false), col("extra_desc", repr.Text, true),
	col("context", repr.Text, false), col("vartype", repr.Text, false),
	col("source", repr.Text, false), col("min_val", repr.Text, true),
	col("max_val", repr.Text, true), col("enumvals", textArray, true),
	col("boot_val", repr.Text, true), col("reset_val", repr.Text, true),
	col("sourcefile", repr.Text, true), col("sourceline", repr.Int4, true),
	col("pending_restart", repr.Bool, false),
}

// fixedSettings are read-only limits that clients read from pg_settings
// (pgjdbc reads max_index_keys), with PostgreSQL's values, which
// Freshet's limits do not exceed.
var fixedSettings = [][2]string{
	{"block_size", "8192"},
	{"max_function_args", "100"},
	{"max_index_keys", "32"},
}

// pgSettingsSQL is pg_settings for session s: every setting SHOW ALL
// lists, with its value in this session, and the fixed limits. A setting
// that SET can change has context "user", the others "internal"; its
// source is "session" when it differs from the value RESET would give.
func (s *Session) pgSettingsSQL() string {
	defaults := defaultSettings(s.startup)
	var rows [][]string
	row := func(name, value, desc, context, source, reset string) {
		vartype := "string"
		if value == "on" || value == "off" {
			vartype = "bool"
		} else if _, err := strconv.ParseInt(value, 10, 64); err == nil {
			vartype = "integer"
		}
		rows = append(rows, []string{
			sqlText(name), sqlText(value), sqlNull, "'Freshet'", sqlText(desc), sqlNull,
			sqlText(context), sqlText(vartype), sqlText(source), sqlNull, sqlNull, sqlNull,
			sqlText(reset), sqlText(reset), sqlNull, sqlNull, "false",
		})
	}
	for _, r := range s.settings.all() {
		name, value, desc := r[0], r[1], r[2]
		context, source := "internal", "default"
		if st := settings[strings.ToLower(name)]; st != nil && st.check != nil {
			context = "user"
		}
		reset := defaults[name]
		if value != reset {
			source = "session"
		}
		row(name, value, desc, context, source, reset)
	}
	for _, f := range fixedSettings {
		row(f[0], f[1], "A limit fixed when the server was built.", "internal", "default", f[1])
	}
	return constRowsSQL(pgSettingsColumns, rows)
}
