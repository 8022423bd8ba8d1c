package planner

import (
	"freshet/expr"
	"freshet/repr"
)

// bindByteaFunc binds the functions over bytea and uuid: encode, decode,
// convert_to, convert_from and gen_random_uuid, and the forms of length,
// octet_length, md5, substr and substring whose first argument is bytea
// (with text, or an untyped literal, they are the string functions).
// ok is false for any other call.
func (b *binder) bindByteaFunc(name string, args []hscalar) (s hscalar, ok bool, err error) {
	byteaFirst := len(args) > 0 && args[0].typ().Type.Kind() == repr.KindBytea
	var fn expr.VariadicFunc
	var sig []repr.Type
	switch {
	case name == "gen_random_uuid":
		if len(args) != 0 {
			return nil, true, errNoFunction(name, args)
		}
		return hVariadic{fn: expr.GenRandomUUID, t: expr.ColumnType{Type: repr.UUID}}, true, nil
	case name == "random":
		if len(args) != 0 {
			return nil, true, errNoFunction(name, args)
		}
		return hVariadic{fn: expr.Random, t: expr.ColumnType{Type: repr.Float8}}, true, nil
	case byteaFirst && (name == "length" || name == "octet_length") && len(args) == 1:
		// The text functions count a datum's bytes for octet_length.
		return hUnary{fn: expr.OctetLength, arg: args[0], t: expr.ColumnType{Type: repr.Int4, Nullable: args[0].typ().Nullable}}, true, nil
	case byteaFirst && name == "md5" && len(args) == 1:
		return hVariadic{fn: expr.MD5, args: args, t: expr.ColumnType{Type: repr.Text, Nullable: args[0].typ().Nullable}}, true, nil
	case byteaFirst && (name == "substr" || name == "substring") && (len(args) == 2 || len(args) == 3):
		fn, sig = expr.ByteaSubstr, []repr.Type{repr.Bytea, repr.Int4, repr.Int4}[:len(args)]
	case name == "encode" && len(args) == 2:
		fn, sig = expr.Encode, []repr.Type{repr.Bytea, repr.Text}
	case name == "decode" && len(args) == 2:
		fn, sig = expr.Decode, []repr.Type{repr.Text, repr.Text}
	case name == "convert_to" && len(args) == 2:
		fn, sig = expr.ConvertTo, []repr.Type{repr.Text, repr.Name}
	case name == "convert_from" && len(args) == 2:
		fn, sig = expr.ConvertFrom, []repr.Type{repr.Bytea, repr.Name}
	default:
		return nil, false, nil
	}
	out := make([]hscalar, len(args))
	nullable := false
	for i, a := range args {
		if out[i], err = b.coerceTo(a, sig[i]); err != nil {
			return nil, true, errNoFunction(name, args)
		}
		nullable = nullable || out[i].typ().Nullable
	}
	t := repr.Bytea
	if fn == expr.Encode || fn == expr.ConvertFrom {
		t = repr.Text
	}
	return hVariadic{fn: fn, args: out, t: expr.ColumnType{Type: t, Nullable: nullable}}, true, nil
}
