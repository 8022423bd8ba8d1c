package coord

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"freshet/catalog"
)

// Metrics are the server's Prometheus metrics, named freshet_*: the
// latencies and counts the engine and sessions observe as they work, and,
// read from the running engine at each scrape, its dataflows,
// arrangements, freshness lag, memory and connections; with Go's runtime
// and the process's. One Metrics outlives the engines a Supervisor
// restarts.
type Metrics struct {
	registry   *prometheus.Registry
	statements *prometheus.HistogramVec
	writes     prometheus.Histogram
	writeRows  prometheus.Counter
	syncs      prometheus.Histogram
	// done counts the statements finished: a server that runs none is
	// idle, whatever its heap does.
	done atomic.Uint64
}

// NewMetrics returns the metrics of a server whose running engine engine
// returns (nil while it restarts).
func NewMetrics(engine func() *Engine) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		statements: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "freshet_statement_duration_seconds",
			Help:    "Statement latency, by command (the statement's tag: SELECT, INSERT, CREATE MATERIALIZED VIEW, ...).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}, []string{"command"}),
		writes: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "freshet_write_duration_seconds",
			Help:    "Time from a write's start to its acknowledgement: durable, and fed to the dataflows.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}),
		writeRows: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "freshet_write_rows_total",
			Help: "Row changes written (an UPDATE's row counts twice: its old and new halves).",
		}),
		syncs: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "freshet_storage_sync_duration_seconds",
			Help:    "Time of each group commit's write and sync to storage.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}),
	}
	m.registry.MustRegister(m.statements, m.writes, m.writeRows, m.syncs,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		engineCollector{engine: engine})
	return m
}

// Registry returns the registry to serve (promhttp.HandlerFor).
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }

// observeStatement records one statement's latency.
func (m *Metrics) observeStatement(command string, d time.Duration) {
	if m != nil {
		m.statements.WithLabelValues(command).Observe(d.Seconds())
		m.done.Add(1)
	}
}

// Statements returns how many statements have finished so far, in every
// engine the metrics served.
func (m *Metrics) Statements() uint64 { return m.done.Load() }

// observeWrite records one acknowledged write of rows row changes.
func (m *Metrics) observeWrite(rows int, d time.Duration) {
	if m != nil {
		m.writes.Observe(d.Seconds())
		m.writeRows.Add(float64(rows))
	}
}

// observeSync records one group commit.
func (m *Metrics) observeSync(d time.Duration) {
	if m != nil {
		m.syncs.Observe(d.Seconds())
	}
}

// engineCollector reads the running engine's state at each scrape.
type engineCollector struct {
	engine func() *Engine
}

var (
	descUp          = prometheus.NewDesc("freshet_up", "1 while the engine serves, 0 while it restarts after a storage fault.", nil, nil)
	descStorageOK   = prometheus.NewDesc("freshet_storage_healthy", "1 while storage takes writes, 0 after a fault (disk full, I/O error) until the restart.", nil, nil)
	descConnections = prometheus.NewDesc("freshet_connections", "Sessions connected now.", nil, nil)
	descDataflows   = prometheus.NewDesc("freshet_dataflows", "Dataflows now, by state (building, running) on each worker, summed over the workers.", []string{"state"}, nil)
	descEnded       = prometheus.NewDesc("freshet_dataflows_ended_total", "Dataflow copies ended since the engine started, by reason.", []string{"reason"}, nil)
	descMemory      = prometheus.NewDesc("freshet_dataflow_memory_bytes", "Bytes each object's dataflow holds (its memory account).", []string{"object", "kind"}, nil)
	descTransient   = prometheus.NewDesc("freshet_transient_memory_bytes", "Bytes held by transient dataflows (queries, subscriptions) now.", nil, nil)
	descRecords     = prometheus.NewDesc("freshet_arrangement_records", "Updates each object's exported arrangement holds, summed over the workers.", []string{"object", "kind"}, nil)
	descBytes       = prometheus.NewDesc("freshet_arrangement_bytes", "Bytes of each object's exported arrangement's batches, summed over the workers.", []string{"object", "kind"}, nil)
	descLag         = prometheus.NewDesc("freshet_freshness_lag_ms", "How far each object's output is behind the newest write that concerns it, in the oracle's milliseconds: 0 when every such write is in.", []string{"object", "kind"}, nil)
)

func (engineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descUp, descStorageOK, descConnections, descDataflows, descEnded, descMemory, descTransient, descRecords, descBytes, descLag} {
		ch <- d
	}
}

func (c engineCollector) Collect(ch chan<- prometheus.Metric) {
	e := c.engine()
	if e == nil {
		ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, 1)
	healthy := 1.0
	if e.store.Fault() != nil {
		healthy = 0
	}
	ch <- prometheus.MustNewConstMetric(descStorageOK, prometheus.GaugeValue, healthy)
	ch <- prometheus.MustNewConstMetric(descConnections, prometheus.GaugeValue, float64(e.sessions.Load()))
	stats := e.cluster.Stats()
	ch <- prometheus.MustNewConstMetric(descDataflows, prometheus.GaugeValue, float64(stats.Building), "building")
	ch <- prometheus.MustNewConstMetric(descDataflows, prometheus.GaugeValue, float64(stats.Running), "running")
	ch <- prometheus.MustNewConstMetric(descEnded, prometheus.CounterValue, float64(stats.Completed), "completed")
	ch <- prometheus.MustNewConstMetric(descEnded, prometheus.CounterValue, float64(stats.Dropped), "dropped")
	ch <- prometheus.MustNewConstMetric(descEnded, prometheus.CounterValue, float64(stats.Failed), "failed")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := e.introspect(ctx)
	var transient int64
	for _, r := range st.reads {
		transient += st.memory[r.dataflow]
	}
	ch <- prometheus.MustNewConstMetric(descTransient, prometheus.GaugeValue, float64(transient))
	for _, o := range st.objects {
		if isSystemTable(o.ID) {
			continue
		}
		switch o.Kind {
		case catalog.Table, catalog.MaterializedView, catalog.Index:
		default:
			continue
		}
		name, kind := o.Database+"."+o.Schema+"."+o.Name, o.Kind.String()
		if d := st.dataflows[o.ID]; d != 0 {
			ch <- prometheus.MustNewConstMetric(descMemory, prometheus.GaugeValue, float64(st.memory[d]), name, kind)
		}
		t, ok := st.totals(o.ID)
		if !ok {
			continue
		}
		ch <- prometheus.MustNewConstMetric(descRecords, prometheus.GaugeValue, float64(t.records), name, kind)
		ch <- prometheus.MustNewConstMetric(descBytes, prometheus.GaugeValue, float64(t.bytes), name, kind)
		ch <- prometheus.MustNewConstMetric(descLag, prometheus.GaugeValue, float64(t.lag), name, kind)
	}
}
