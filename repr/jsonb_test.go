package repr

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"freshet/sqlerr"
)

// The expected texts are PostgreSQL 15's output for the same input.
func TestJSONBText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"b":1.0,"a":[1e2, 1.50e1, -0.0],"aa":null}`, `{"a": [100, 15.0, 0.0], "b": 1.0, "aa": null}`},
		{` [ ] `, `[]`},
		{`{}`, `{}`},
		{`{"a":1,"a":2,"b":{"a":3,"a":4}}`, `{"a": 2, "b": {"a": 4}}`},
		{`"x\u00e9\n\"y"`, `"xé\n\"y"`},
		{`-12.500`, `-12.500`},
		{`1e-3`, `0.001`},
		{`true`, `true`},
		{`null`, `null`},
		{`[1, [2, [3]], {"c": "d"}]`, `[1, [2, [3]], {"c": "d"}]`},
		{`{"bb":1,"a":2,"ccc":3,"b":4}`, `{"a": 2, "b": 4, "bb": 1, "ccc": 3}`},
	} {
		d, err := ParseText(JSONBType, c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := FormatText(d); got != c.want {
			t.Errorf("%s prints %s, want %s", c.in, got, c.want)
		}
		ds, err := PackRow(d).Datums([]Type{JSONBType})
		if err != nil || FormatText(ds[0]) != c.want || Compare(ds[0], d) != 0 {
			t.Errorf("%s: row round trip %v, %v", c.in, ds, err)
		}
	}
	for _, c := range []struct{ in, code string }{
		{``, sqlerr.InvalidTextRepresentation},
		{`{`, sqlerr.InvalidTextRepresentation},
		{`[1,]`, sqlerr.InvalidTextRepresentation},
		{`{"a" 1}`, sqlerr.InvalidTextRepresentation},
		{`1 2`, sqlerr.InvalidTextRepresentation},
		{`01`, sqlerr.InvalidTextRepresentation},
		{"\xff", sqlerr.InvalidTextRepresentation},
		{`{'a': 1}`, sqlerr.InvalidTextRepresentation},
		{`"\u0000"`, sqlerr.UntranslatableCharacter},
		{`{"\u0000": 1}`, sqlerr.UntranslatableCharacter},
		{`1e1000000`, sqlerr.NumericValueOutOfRange},
		{strings.Repeat("[", maxJSONBDepth+2), sqlerr.StatementTooComplex},
	} {
		_, err := ParseText(JSONBType, c.in)
		if sqlerr.Code(err) != c.code {
			t.Errorf("%.20q: %v, want %s", c.in, err, c.code)
		}
	}
}

func TestJSONBPretty(t *testing.T) {
	v, err := ParseJSONB(`{"a":[1,{"b":[]}],"c":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n    \"a\": [\n        1,\n        {\n            \"b\": [\n            ]\n        }\n    ],\n    \"c\": {\n    }\n}"
	if got := string(AppendJSONBPretty(nil, &v)); got != want {
		t.Errorf("pretty:\n%s\nwant\n%s", got, want)
	}
}

func TestJSONBCast(t *testing.T) {
	for _, c := range []struct {
		in   string
		to   Type
		want string
		code string
	}{
		{`1.5`, Int4, "2", ""},
		{`true`, Bool, "t", ""},
		{`12.50`, Numeric, "12.50", ""},
		{`"1"`, Int4, "", sqlerr.InvalidParameterValue},
		{`null`, Int4, "", sqlerr.InvalidParameterValue},
		{`[1]`, Float8, "", sqlerr.InvalidParameterValue},
		{`1`, Bool, "", sqlerr.InvalidParameterValue},
		{`{"a": 1}`, Text, `{"a": 1}`, ""},
		{`{"a": 1}`, JSON, `{"a": 1}`, ""},
	} {
		got, err := Cast(mustParse(t, JSONBType, c.in), c.to)
		if sqlerr.Code(err) != cmp.Or(c.code, sqlerr.SuccessfulCompletion) || err == nil && FormatText(got) != c.want {
			t.Errorf("%s::%s = %v, %v; want %q %s", c.in, c.to, got, err, c.want, c.code)
		}
	}
	if _, err := Cast(mustParse(t, Int4, "1"), JSONBType); sqlerr.Code(err) != sqlerr.CannotCoerce {
		t.Errorf("int to jsonb: %v", err)
	}
	d, err := Cast(NewJSON(`{"b":1, "a":2}`), JSONBType)
	if err != nil || FormatText(d) != `{"a": 2, "b": 1}` {
		t.Errorf("json to jsonb: %v, %v", d, err)
	}
}

// TestJSONBOrder checks on seeded random values that the row encoding
// orders jsonb values as refCompareJSONB, a direct transcription of
// PostgreSQL's token-by-token comparison, does, and that the key is
// canonical: values equal by that order have equal keys.
func TestJSONBOrder(t *testing.T) {
	forSeeds(t, 20, func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, seed^0x15b))
		vals := make([]JSONB, 60)
		for i := range vals {
			vals[i] = randomJSONB(rng, 0)
		}
		for i := range vals {
			for j := range vals {
				a, b := NewJSONB(&vals[i]), NewJSONB(&vals[j])
				want := refCompareJSONB(&vals[i], &vals[j])
				if got := CompareJSONBKeys(a, b); got != want {
					t.Fatalf("keys of %s and %s compare %d, want %d", FormatText(a), FormatText(b), got, want)
				}
				ra, rb := PackRow(a), PackRow(b)
				bc := bytes.Compare(ra, rb)
				if bc != Compare(a, b) || want != 0 && bc != want {
					t.Fatalf("rows of %s and %s compare %d, Compare %d, want %d", FormatText(a), FormatText(b), bc, Compare(a, b), want)
				}
				if bc == 0 && FormatText(a) != FormatText(b) {
					t.Fatalf("%s and %s share a row encoding", FormatText(a), FormatText(b))
				}
			}
			back, err := PackRow(NewJSONB(&vals[i])).Datums([]Type{JSONBType})
			if err != nil || FormatText(back[0]) != string(AppendJSONBText(nil, &vals[i])) {
				t.Fatalf("round trip of %s: %v, %v", AppendJSONBText(nil, &vals[i]), back, err)
			}
		}
	})
}

// randomJSONB draws a value with few distinct leaves, so that equal
// and nearly equal values are common.
func randomJSONB(rng *rand.Rand, depth int) JSONB {
	n := 4
	if depth < 3 {
		n = 6
	}
	switch rng.IntN(n) {
	case 0:
		return JSONB{}
	case 1:
		return JSONB{Kind: JSONBString, Str: []string{"", "a", "b", "ab", "a\x00", "é"}[rng.IntN(6)]}
	case 2:
		d, _, _ := apd.NewFromString([]string{"0", "0.0", "1", "1.0", "1.50", "-2", "100", "1e-3", "-0.10"}[rng.IntN(9)])
		return JSONB{Kind: JSONBNumber, Num: d}
	case 3:
		return JSONB{Kind: JSONBBool, Bool: rng.IntN(2) == 0}
	case 4:
		v := JSONB{Kind: JSONBArray}
		for range rng.IntN(3) {
			v.Elems = append(v.Elems, randomJSONB(rng, depth+1))
		}
		return v
	}
	var keys []string
	var vals []JSONB
	for range rng.IntN(4) {
		keys = append(keys, []string{"a", "b", "aa", "c"}[rng.IntN(4)])
		vals = append(vals, randomJSONB(rng, depth+1))
	}
	return NewJSONBObject(keys, vals)
}

// refCompareJSONB compares as PostgreSQL's compareJsonbContainers: it
// walks both values' token streams (a top-level scalar is an array of
// one element marked raw) and decides at the first difference.
func refCompareJSONB(a, b *JSONB) int {
	ta, tb := refTokens(a, true, nil), refTokens(b, true, nil)
	for i := 0; ; i++ {
		x, y := ta[i], tb[i]
		if x.end && y.end {
			if i == len(ta)-1 && i == len(tb)-1 {
				return 0
			}
			continue
		}
		if x.v.Kind != y.v.Kind || x.end != y.end {
			// The ends of containers of one size line up, so a
			// difference is one of kinds.
			return cmp.Compare(x.v.Kind, y.v.Kind)
		}
		switch x.v.Kind {
		case JSONBArray:
			c := 0
			if x.raw != y.raw {
				c = -1
				if !x.raw {
					c = 1
				}
			}
			if len(x.v.Elems) != len(y.v.Elems) {
				c = cmp.Compare(len(x.v.Elems), len(y.v.Elems))
			}
			if c != 0 {
				return c
			}
		case JSONBObject:
			if c := cmp.Compare(len(x.v.Elems), len(y.v.Elems)); c != 0 {
				return c
			}
		case JSONBString:
			if c := strings.Compare(x.v.Str, y.v.Str); c != 0 {
				return c
			}
		case JSONBNumber:
			if c := x.v.Num.Cmp(y.v.Num); c != 0 {
				return c
			}
		case JSONBBool:
			if x.v.Bool != y.v.Bool {
				if x.v.Bool {
					return 1
				}
				return -1
			}
		}
	}
}

// refToken is a container's start (v), its end, or a scalar (an
// object's key is a string token before its value), as PostgreSQL's
// iterator yields them.
type refToken struct {
	v   *JSONB
	raw bool
	end bool
}

func refTokens(v *JSONB, top bool, out []refToken) []refToken {
	if top && !v.IsContainer() {
		arr := &JSONB{Kind: JSONBArray, Elems: []JSONB{*v}}
		out = append(out, refToken{v: arr, raw: true})
		out = append(out, refToken{v: v})
		return append(out, refToken{v: arr, end: true})
	}
	out = append(out, refToken{v: v})
	if !v.IsContainer() {
		return out
	}
	for i := range v.Elems {
		if v.Kind == JSONBObject {
			out = append(out, refToken{v: &JSONB{Kind: JSONBString, Str: v.Keys[i]}})
		}
		out = refTokens(&v.Elems[i], false, out)
	}
	return append(out, refToken{v: v, end: true})
}
