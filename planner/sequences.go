package planner

import (
	"math"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/repr"
	"freshet/sqlerr"
)

// SequenceDef is a sequence's parameters: CREATE SEQUENCE's, or those of
// the sequence behind a serial or identity column.
type SequenceDef struct {
	Name QualifiedName
	// Type is the values' type: int2, int4 or int8.
	Type      repr.Type
	Start     int64
	Increment int64
	Min, Max  int64
	Cache     int64
	Cycle     bool
}

// CreateSequence is CREATE SEQUENCE.
type CreateSequence struct {
	Def         SequenceDef
	IfNotExists bool
}

func (*CreateSequence) Tag() string { return "CREATE SEQUENCE" }

func (p *planner) createSequence(s *pg.CreateSeqStmt) (Statement, error) {
	if s.Sequence.Relpersistence == "t" {
		return nil, unsupported("temporary sequences")
	}
	def, err := p.sequenceDef(qualifiedName(s.Sequence), repr.Int8, s.Options)
	if err != nil {
		return nil, err
	}
	return &CreateSequence{Def: def, IfNotExists: s.IfNotExists}, nil
}

// sequenceDef reads sequence options (AS, INCREMENT, MINVALUE, MAXVALUE,
// START, CACHE, CYCLE) over the defaults of a sequence of type t, with
// PostgreSQL's checks and messages.
func (p *planner) sequenceDef(name QualifiedName, t repr.Type, opts []*pg.Node) (SequenceDef, error) {
	d := SequenceDef{Name: name, Type: t, Increment: 1, Cache: 1}
	var minSet, maxSet, startSet bool
	num := func(e *pg.DefElem) (int64, error) {
		switch {
		case e.Arg.GetInteger() != nil:
			return int64(e.Arg.GetInteger().Ival), nil
		case e.Arg.GetFloat() != nil:
			v, err := repr.ParseText(repr.Int8, e.Arg.GetFloat().Fval)
			if err != nil {
				return 0, err
			}
			return v.Int(), nil
		}
		return 0, sqlerr.New(sqlerr.SyntaxError, "%s requires a numeric value", e.Defname)
	}
	for _, n := range opts {
		e := n.GetDefElem()
		if e == nil {
			continue
		}
		var err error
		switch e.Defname {
		case "as":
			tt, err := p.b.typeFromName(e.Arg.GetTypeName())
			if err != nil {
				return d, err
			}
			switch tt.Kind() {
			case repr.KindInt2, repr.KindInt4, repr.KindInt8:
				d.Type = tt
			default:
				return d, sqlerr.New(sqlerr.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
			}
		case "increment":
			if d.Increment, err = num(e); err == nil && d.Increment == 0 {
				err = sqlerr.New(sqlerr.InvalidParameterValue, "INCREMENT must not be zero")
			}
		case "minvalue":
			if e.Arg != nil {
				d.Min, err = num(e)
				minSet = true
			}
		case "maxvalue":
			if e.Arg != nil {
				d.Max, err = num(e)
				maxSet = true
			}
		case "start":
			d.Start, err = num(e)
			startSet = true
		case "cache":
			if d.Cache, err = num(e); err == nil && d.Cache < 1 {
				err = sqlerr.New(sqlerr.InvalidParameterValue, "CACHE (%d) must be greater than zero", d.Cache)
			}
		case "cycle":
			d.Cycle = e.Arg == nil || e.Arg.GetBoolean().GetBoolval() || e.Arg.GetInteger().GetIval() != 0
		case "owned_by":
			// OWNED BY NONE is the default; a column owning a sequence
			// comes only from serial and identity columns.
			items := e.Arg.GetList().GetItems()
			if len(items) != 1 || !strings.EqualFold(items[0].GetString_().GetSval(), "none") {
				return d, unsupported("OWNED BY a column")
			}
		case "sequence_name":
		default:
			return d, unsupported("sequence option %s", e.Defname)
		}
		if err != nil {
			return d, err
		}
	}
	typeMax := map[repr.Kind]int64{repr.KindInt2: math.MaxInt16, repr.KindInt4: math.MaxInt32, repr.KindInt8: math.MaxInt64}[d.Type.Kind()]
	typeMin := -typeMax - 1
	if !maxSet {
		d.Max = typeMax
		if d.Increment < 0 {
			d.Max = -1
		}
	}
	if !minSet {
		d.Min = 1
		if d.Increment < 0 {
			d.Min = typeMin
		}
	}
	if d.Max > typeMax || d.Max < typeMin {
		return d, sqlerr.New(sqlerr.InvalidParameterValue, "MAXVALUE (%d) is out of range for sequence data type %s", d.Max, typeName(d.Type))
	}
	if d.Min > typeMax || d.Min < typeMin {
		return d, sqlerr.New(sqlerr.InvalidParameterValue, "MINVALUE (%d) is out of range for sequence data type %s", d.Min, typeName(d.Type))
	}
	if d.Min >= d.Max {
		return d, sqlerr.New(sqlerr.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", d.Min, d.Max)
	}
	if !startSet {
		d.Start = d.Min
		if d.Increment < 0 {
			d.Start = d.Max
		}
	}
	if d.Start < d.Min {
		return d, sqlerr.New(sqlerr.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", d.Start, d.Min)
	}
	if d.Start > d.Max {
		return d, sqlerr.New(sqlerr.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", d.Start, d.Max)
	}
	return d, nil
}

// serialTypes are the serial pseudo-types and the integer types their
// columns have.
var serialTypes = map[string]repr.Type{
	"smallserial": repr.Int2, "serial2": repr.Int2,
	"serial": repr.Int4, "serial4": repr.Int4,
	"bigserial": repr.Int8, "serial8": repr.Int8,
}

// serialType returns the column type of a serial pseudo-type name, if tn
// is one.
func serialType(tn *pg.TypeName) (repr.Type, bool) {
	if tn == nil || len(tn.Names) == 0 || len(tn.ArrayBounds) > 0 {
		return repr.Type{}, false
	}
	names := tn.Names
	if len(names) == 2 && names[0].GetString_().GetSval() == "pg_catalog" {
		names = names[1:]
	}
	if len(names) != 1 {
		return repr.Type{}, false
	}
	t, ok := serialTypes[names[0].GetString_().GetSval()]
	return t, ok
}

// owningSequenceName is PostgreSQL's name for the sequence of column col
// of table: table_col_seq.
func owningSequenceName(table, col string) string { return table + "_" + col + "_seq" }
