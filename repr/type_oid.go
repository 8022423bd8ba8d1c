package repr

// TypeFromOID returns the unmodified type whose pg_type OID is oid, as a
// client names a parameter's type in Parse, and whether there is one.
// The unknown type's OID (705) maps to Unknown.
func TypeFromOID(oid uint32) (Type, bool) {
	for k := KindUnknown; k < numKinds; k++ {
		if kinds[k].oid == oid {
			return Type{kind: k}, true
		}
	}
	return Type{}, false
}

// Type returns the unmodified type of kind k.
func (k Kind) Type() Type { return Type{kind: k} }
