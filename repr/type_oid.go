package repr

// TypeFromOID returns the unmodified type whose pg_type OID is oid, as a
// client names a parameter's type in Parse, and whether there is one.
// The unknown type's OID (705) maps to Unknown.
func TypeFromOID(oid uint32) (Type, bool) {
	switch oid {
	case int2VectorOID:
		return Int2Vector, true
	case oidVectorOID:
		return OIDVector, true
	}
	for k := KindUnknown; k < numKinds; k++ {
		if k == KindArray {
			continue
		}
		if kinds[k].oid == oid {
			return Type{kind: k}, true
		}
		if kinds[k].arrayOID == oid && oid != 0 {
			return ArrayOf(Type{kind: k}), true
		}
	}
	return Type{}, false
}

// Type returns the unmodified type of kind k.
func (k Kind) Type() Type { return Type{kind: k} }

// FormatType is PostgreSQL's format_type(oid, typmod): the SQL name of
// the type with OID oid and modifier typmod (-1, or hasMod false, for
// none), "???" for an OID that names no type, and the element's name
// followed by "[]" for an array type.
func FormatType(oid uint32, typmod int32, hasMod bool) string {
	if !hasMod {
		typmod = -1
	}
	t, ok := TypeFromOID(oid)
	if !ok {
		return "???"
	}
	if t.kind == KindArray && !t.vector {
		return ArrayOf(t.Elem().withTypmod(typmod)).String()
	}
	return t.withTypmod(typmod).String()
}

// withTypmod returns t with the modifier typmod (as Typmod reports it);
// -1 or a modifier t's kind cannot carry leaves t as it is.
func (t Type) withTypmod(typmod int32) Type {
	if typmod < 0 {
		return t
	}
	switch t.kind {
	case KindVarchar, KindBpchar:
		if typmod >= 4 {
			t.width = typmod - 4
		}
	case KindNumeric:
		if typmod >= 4 {
			m := typmod - 4
			t.width, t.scale = m>>16, int16(m&0x7ff)
		}
	case KindTimestamp, KindTimestampTZ, KindTime:
		if typmod <= 6 {
			t.prec = int8(typmod + 1)
		}
	}
	return t
}
