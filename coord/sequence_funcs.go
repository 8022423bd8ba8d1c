package coord

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"freshet/catalog"
	"freshet/expr"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// sessionSequences is what a session knows of the sequences it used:
// currval's and lastval's values.
type sessionSequences struct {
	mu   sync.Mutex
	last map[uint64]int64
	// lastID is the sequence nextval or setval last touched, for
	// lastval; 0 before any.
	lastID uint64
}

func (ss *sessionSequences) note(id uint64, v int64) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.last == nil {
		ss.last = map[uint64]int64{}
	}
	ss.last[id], ss.lastID = v, id
}

// sequenceObject is the catalog object of a sequence the session creates
// from def; column, counted from 1, is the column of the table being
// created that owns it, 0 for none.
func (s *Session) sequenceObject(def planner.SequenceDef, column int) *catalog.Object {
	o := &catalog.Object{Kind: catalog.Sequence, Name: def.Name.Name, Database: s.database, Schema: catalog.DefaultSchema,
		Owner: s.ownerForNew(), Seq: &catalog.SequenceOptions{Type: def.Type.Name(), Start: def.Start, Increment: def.Increment,
			Min: def.Min, Max: def.Max, Cache: def.Cache, Cycle: def.Cycle, Column: column}}
	if schema, err := s.creationSchema(def.Name); err == nil {
		o.Schema = schema
	}
	return o
}

func (s *Session) createSequence(ctx context.Context, st *planner.CreateSequence, w pgwire.Writer) (result, error) {
	if err := refuseSystemSchema(st.Def.Name); err != nil {
		return result{}, err
	}
	err := s.engine.CreateSequence(ctx, s.sequenceObject(st.Def, 0))
	if err != nil && st.IfNotExists && sqlerr.Code(err) == sqlerr.DuplicateTable {
		w.Notice(sqlerr.New(sqlerr.DuplicateTable, "relation %q already exists, skipping", st.Def.Name.Name).WithSeverity(sqlerr.SeverityNotice))
		err = nil
	}
	return result{tag: st.Tag()}, err
}

// sequenceCall is a call of nextval, currval, setval or lastval, bound
// to the session that runs it: each evaluation, one per row, acts on the
// sequence.
type sequenceCall struct {
	s    *Session
	f    expr.VariadicFunc
	args []expr.Scalar
}

// RewriteScalars implements expr.ScalarRewriter.
func (c sequenceCall) RewriteScalars(f func(expr.Scalar) expr.Scalar) expr.Scalar {
	args := make([]expr.Scalar, len(c.args))
	for i, a := range c.args {
		args[i] = f(a)
	}
	return sequenceCall{s: c.s, f: c.f, args: args}
}

// CallsPerRow implements expr.PerRowCall: nextval gives each row its
// own value, and setval acts on each.
func (c sequenceCall) CallsPerRow() bool { return c.f == expr.NextVal || c.f == expr.SetVal }

func (c sequenceCall) Eval(row []repr.Datum) (repr.Datum, error) {
	args := make([]repr.Datum, len(c.args))
	for i, a := range c.args {
		v, err := a.Eval(row)
		if err != nil {
			return repr.Null, err
		}
		if v.IsNull() {
			return repr.Null, nil
		}
		args[i] = v
	}
	s, ss := c.s, &c.s.seqs
	if c.f == expr.LastVal {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		if ss.lastID == 0 {
			return repr.Null, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
		}
		return repr.NewInt8(ss.last[ss.lastID]), nil
	}
	o, err := s.engine.sequenceByOID(args[0].Int())
	if err != nil {
		return repr.Null, err
	}
	switch c.f {
	case expr.NextVal:
		v, err := s.engine.NextVal(context.Background(), o)
		if err != nil {
			return repr.Null, err
		}
		ss.note(o.ID, v)
		return repr.NewInt8(v), nil
	case expr.CurrVal:
		ss.mu.Lock()
		defer ss.mu.Unlock()
		v, ok := ss.last[o.ID]
		if !ok {
			return repr.Null, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "currval of sequence %q is not yet defined in this session", o.Name)
		}
		return repr.NewInt8(v), nil
	case expr.SetVal:
		called := len(args) < 3 || args[2].Bool()
		if err := s.engine.SetVal(context.Background(), o, args[1].Int(), called); err != nil {
			return repr.Null, err
		}
		ss.note(o.ID, args[1].Int())
		return args[1], nil
	}
	return repr.Null, sqlerr.AssertionFailedf("%s is no sequence function", c.f)
}

func (c sequenceCall) Typ([]expr.ColumnType) expr.ColumnType {
	return expr.CallVariadic{Func: c.f}.Typ(nil)
}

func (c sequenceCall) Columns(dst []int) []int {
	for _, a := range c.args {
		dst = a.Columns(dst)
	}
	return dst
}

func (c sequenceCall) String() string {
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = a.String()
	}
	return fmt.Sprintf("%s(%s)", c.f, strings.Join(args, ", "))
}

// isSequenceFunc reports whether f is one of the sequence functions.
func isSequenceFunc(f expr.VariadicFunc) bool {
	return f == expr.NextVal || f == expr.CurrVal || f == expr.SetVal || f == expr.LastVal
}

// pgSequenceColumns are pg_sequence's columns, PostgreSQL 15's.
var pgSequenceColumns = []planner.RelationColumn{
	col("seqrelid", oidType, false), col("seqtypid", oidType, false),
	col("seqstart", repr.Int8, false), col("seqincrement", repr.Int8, false),
	col("seqmax", repr.Int8, false), col("seqmin", repr.Int8, false),
	col("seqcache", repr.Int8, false), col("seqcycle", repr.Bool, false),
}

// pgSequenceRows are object o's row of pg_sequence, if it is a sequence.
func pgSequenceRows(_ *rowSource, o *catalog.Object) [][]string {
	if o == nil || o.Kind != catalog.Sequence || o.Seq == nil {
		return nil
	}
	t, err := repr.TypeFromName(o.Seq.Type, nil)
	if err != nil {
		t = repr.Int8
	}
	p := o.Seq
	return [][]string{{sqlInt(relationOID(o.ID)), sqlInt(t.OID()), sqlInt(p.Start), sqlInt(p.Increment),
		sqlInt(p.Max), sqlInt(p.Min), sqlInt(p.Cache), sqlBool(p.Cycle)}}
}

func init() {
	generatedViews["pg_sequence"] = generatedView{columns: pgSequenceColumns, rows: pgSequenceRows}
}
