package expr

import (
	"testing"

	"freshet/repr"
	"freshet/sqlerr"
)

// TestJSONBFuncs checks the jsonb operators and functions on values
// whose results PostgreSQL 15 gives as written here.
func TestJSONBFuncs(t *testing.T) {
	j := func(s string) Scalar {
		d, err := repr.ParseText(repr.JSONBType, s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return Literal{Value: d, Type: repr.JSONBType}
	}
	txt := func(s string) Scalar { return Literal{Value: repr.NewText(s), Type: repr.Text} }
	path := func(s ...string) Scalar {
		var ds []repr.Datum
		for _, e := range s {
			ds = append(ds, repr.NewText(e))
		}
		return Literal{Value: repr.NewArray(repr.Text, ds), Type: repr.ArrayOf(repr.Text)}
	}
	null := Literal{Value: repr.Null, Type: repr.JSONBType}
	for _, c := range []struct {
		fn   VariadicFunc
		args []Scalar
		want string // the result's text, NULL, or the SQLSTATE of an error
	}{
		{JSONBGet, []Scalar{j(`{"a": [1, 2]}`), txt("a")}, "[1, 2]"},
		{JSONBGet, []Scalar{j(`[1, 2]`), i4(-1)}, "2"},
		{JSONBGet, []Scalar{j(`[1, 2]`), i4(2)}, "NULL"},
		{JSONBGet, []Scalar{j(`[1, 2]`), txt("0")}, "NULL"},
		{JSONBGet, []Scalar{j(`{"a": 1}`), i4(0)}, "NULL"},
		{JSONBGetText, []Scalar{j(`{"a": "x"}`), txt("a")}, "x"},
		{JSONBGetText, []Scalar{j(`{"a": null}`), txt("a")}, "NULL"},
		{JSONBGetText, []Scalar{j(`{"a": 1.50}`), txt("a")}, "1.50"},
		{JSONBPath, []Scalar{j(`{"a": [0, {"b": 7}]}`), path("a", "1", "b")}, "7"},
		{JSONBPath, []Scalar{j(`{"a": [0, {"b": 7}]}`), path("a", "x")}, "NULL"},
		{JSONBPathText, []Scalar{j(`"s"`), path()}, "s"},
		{JSONBContains, []Scalar{j(`{"a": [1, 2, {"b": 1}], "c": 3}`), j(`{"a": [{}, 2]}`)}, "t"},
		{JSONBContains, []Scalar{j(`{"a": [1, 2]}`), j(`{"a": 1}`)}, "f"},
		{JSONBContains, []Scalar{j(`[1, [2, 3]]`), j(`[2]`)}, "f"},
		{JSONBContains, []Scalar{j(`[1, [2, 3]]`), j(`[[2]]`)}, "t"},
		{JSONBContains, []Scalar{j(`["a", 1]`), j(`"a"`)}, "t"},
		{JSONBContains, []Scalar{j(`"a"`), j(`["a"]`)}, "f"},
		{JSONBContains, []Scalar{j(`1.0`), j(`1`)}, "t"},
		{JSONBContained, []Scalar{j(`{"a": 1}`), j(`{"a": 1, "b": 2}`)}, "t"},
		{JSONBExists, []Scalar{j(`["a", {"b": 1}]`), txt("b")}, "f"},
		{JSONBExists, []Scalar{j(`{"b": null}`), txt("b")}, "t"},
		{JSONBExistsAll, []Scalar{j(`{"a": 1, "b": 2}`), path("a", "b")}, "t"},
		{JSONBExistsAny, []Scalar{j(`{"a": 1, "b": 2}`), path("c", "d")}, "f"},
		{JSONBConcat, []Scalar{j(`{"a": 1, "b": 2}`), j(`{"a": 3}`)}, `{"a": 3, "b": 2}`},
		{JSONBConcat, []Scalar{j(`1`), j(`[2]`)}, `[1, 2]`},
		{JSONBConcat, []Scalar{j(`{"a": 1}`), j(`2`)}, `[{"a": 1}, 2]`},
		{JSONBDelete, []Scalar{j(`["a", 1, "a"]`), txt("a")}, `[1]`},
		{JSONBDelete, []Scalar{j(`[0, 1, 2]`), i4(-3)}, `[1, 2]`},
		{JSONBDelete, []Scalar{j(`{"a": 1}`), i4(0)}, sqlerr.InvalidParameterValue},
		{JSONBDelete, []Scalar{j(`"a"`), txt("a")}, sqlerr.InvalidParameterValue},
		{JSONBTypeof, []Scalar{j(`1.5`)}, "number"},
		{JSONBArrayLength, []Scalar{j(`[1, [2, 3]]`)}, "2"},
		{JSONBArrayLength, []Scalar{j(`{}`)}, sqlerr.InvalidParameterValue},
		{JSONBStripNulls, []Scalar{j(`[null, {"a": null, "b": [null]}]`)}, `[null, {"b": [null]}]`},
		{JSONBSet, []Scalar{j(`{"a": [1, 2]}`), path("a", "-1"), j(`{"x": 1}`)}, `{"a": [1, {"x": 1}]}`},
		{JSONBSet, []Scalar{j(`{"a": [1, 2]}`), path("a", "9"), j(`3`)}, `{"a": [1, 2, 3]}`},
		{JSONBSet, []Scalar{j(`{"a": 1}`), path("b"), j(`2`), Literal{Value: repr.NewBool(false), Type: repr.Bool}}, `{"a": 1}`},
		{JSONBSet, []Scalar{j(`[1]`), path("x"), j(`2`)}, sqlerr.InvalidTextRepresentation},
		{JSONBGet, []Scalar{null, txt("a")}, "NULL"},
		{ToJSONB, []Scalar{Literal{Value: repr.NewText("a\n"), Type: repr.Text}}, `"a\n"`},
		{JSONBBuildObject, []Scalar{txt("b"), i4(1), txt("a"), null, txt("b"), i4(2)}, `{"a": null, "b": 2}`},
		{JSONBBuildObject, []Scalar{txt("b")}, sqlerr.InvalidParameterValue},
	} {
		call := CallVariadic{Func: c.fn, Args: c.args}
		d, err := call.Eval(nil)
		got := "NULL"
		switch {
		case err != nil:
			got = sqlerr.Code(err)
		case !d.IsNull():
			got = repr.FormatText(d)
		}
		if got != c.want {
			t.Errorf("%s%v = %s (%v), want %s", c.fn, c.args, got, err, c.want)
		}
	}
}

// TestJSONBTableFuncs checks the elements and keys the jsonb table
// functions yield, and their errors.
func TestJSONBTableFuncs(t *testing.T) {
	d := func(s string) repr.Datum {
		v, err := repr.ParseText(repr.JSONBType, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		fn   TableFunc
		in   repr.Datum
		want []string
		code string
	}{
		{JSONBArrayElements, d(`[1, "a", null]`), []string{"1", `"a"`, "null"}, ""},
		{JSONBArrayElementsText, d(`[1, "a", null]`), []string{"1", "a", "NULL"}, ""},
		{JSONBObjectKeys, d(`{"bb": 1, "a": 2}`), []string{"a", "bb"}, ""},
		{JSONBObjectKeys, d(`[1]`), nil, sqlerr.InvalidParameterValue},
		{JSONBEach, d(`{"b": 1}`), []string{"b"}, ""},
		{JSONBEachText, d(`"x"`), nil, sqlerr.InvalidParameterValue},
		{JSONBArrayElements, d(`{}`), nil, sqlerr.InvalidParameterValue},
		{JSONBArrayElements, d(`1`), nil, sqlerr.InvalidParameterValue},
		{JSONBArrayElements, repr.Null, nil, ""},
	} {
		vals, err := EvalTableFunc(c.fn, []repr.Datum{c.in}, repr.JSONBType)
		if c.code != "" || err != nil {
			if sqlerr.Code(err) != c.code {
				t.Errorf("%s(%v): %v, want %s", c.fn, c.in, err, c.code)
			}
			continue
		}
		var got []string
		for _, v := range vals {
			if v.IsNull() {
				got = append(got, "NULL")
			} else {
				got = append(got, repr.FormatText(v))
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%s(%v) = %q, want %q", c.fn, c.in, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s(%v) = %q, want %q", c.fn, c.in, got, c.want)
				break
			}
		}
	}
}
