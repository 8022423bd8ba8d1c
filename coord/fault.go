package coord

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"freshet/catalog"
	"freshet/sqlerr"
)

// InjectFault fails the dataflow of the catalog object named name (a
// table, materialized view or index in the default database and schema)
// on worker, as a panic in one of its operators would: the failure path
// then runs exactly as for a real panic. It is for tests; the server
// exposes it only when started with fault injection enabled.
func (e *Engine) InjectFault(ctx context.Context, name string, worker int) error {
	e.mu.Lock()
	var o *catalog.Object
	for _, x := range e.cat.Objects() {
		if x.Name == name && x.Database == catalog.DefaultDatabase && x.Schema == catalog.DefaultSchema && x.Kind != catalog.Database && x.Kind != catalog.Schema {
			o = x
			break
		}
	}
	if o == nil {
		e.mu.Unlock()
		return sqlerr.New(sqlerr.UndefinedObject, "object %q does not exist", name)
	}
	d, ok := e.dataflows[o.ID]
	e.mu.Unlock()
	if !ok {
		return sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "%s %q has no running dataflow", o.Kind, o.Name)
	}
	if worker < 0 || worker >= e.workers {
		return sqlerr.New(sqlerr.InvalidParameterValue, "worker %d is out of range: the server has %d", worker, e.workers)
	}
	return e.cluster.InjectFault(ctx, d, worker, fmt.Sprintf("injected fault in %s %q", o.Kind, o.Name))
}

// faultSetting is the setting that injects a fault over SQL, when the
// engine allows it: SET freshet_inject_fault = 'name' fails the dataflow
// of object name on worker 0, 'name:w' on worker w.
const faultSetting = "freshet_inject_fault"

func (s *Session) injectFault(ctx context.Context, value string) error {
	if !s.engine.faultInjection {
		return sqlerr.New(sqlerr.FeatureNotSupported, "fault injection is disabled on this server")
	}
	name, worker := value, 0
	if i := strings.LastIndexByte(value, ':'); i >= 0 {
		w, err := strconv.Atoi(value[i+1:])
		if err != nil {
			return sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter %q: %q", faultSetting, value)
		}
		name, worker = value[:i], w
	}
	return s.engine.InjectFault(ctx, name, worker)
}
