package repr

import "testing"

func TestFormatType(t *testing.T) {
	for _, tc := range []struct {
		oid    uint32
		typmod int32
		hasMod bool
		want   string
	}{
		{23, -1, true, "integer"},
		{23, 0, false, "integer"},
		{1043, 14, true, "character varying(10)"},
		{1043, -1, true, "character varying"},
		{1042, 5, true, "character(1)"},
		{1700, NumericOf(10, 2).Typmod(), true, "numeric(10,2)"},
		{1700, -1, true, "numeric"},
		{1184, 3, true, "timestamp(3) with time zone"},
		{1114, -1, true, "timestamp without time zone"},
		{1007, -1, true, "integer[]"},
		{1015, 14, true, "character varying(10)[]"},
		{22, -1, true, "int2vector"},
		{30, -1, true, "oidvector"},
		{18, -1, true, `"char"`},
		{19, -1, true, "name"},
		{1002, -1, true, `"char"[]`},
		{2950, -1, true, "uuid"},
		{2951, -1, true, "uuid[]"},
		{17, -1, true, "bytea"},
		{1001, -1, true, "bytea[]"},
		{99999, -1, true, "???"},
	} {
		if got := FormatType(tc.oid, tc.typmod, tc.hasMod); got != tc.want {
			t.Errorf("FormatType(%d, %d, %t) = %q, want %q", tc.oid, tc.typmod, tc.hasMod, got, tc.want)
		}
	}
}
