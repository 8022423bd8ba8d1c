package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// printTables prints a table for each workload that ran.
func printTables(w io.Writer, rs []result) {
	section := func(title, header string, rows func(*tabwriter.Writer) int) {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
		fmt.Fprintf(tw, "%s\t\n", header)
		if rows(tw) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s\n", title)
		tw.Flush()
	}
	section("main: the join + GROUP BY view", "system\tN\tload rows/s\thydrate\tfresh p50\tfresh p99\tpeek p50\twrites rows/s\trestart\tRSS at rest\tbytes/row\tpeak RSS", func(tw *tabwriter.Writer) (k int) {
		for _, r := range rs {
			m := r.main
			if m == nil {
				continue
			}
			k++
			restart, rss, per, peak := "—", "—", "—", "—"
			if m.restart > 0 {
				restart = round(m.restart)
			}
			if m.rssBytes > 0 {
				rss = megabytes(m.rssBytes)
				per = fmt.Sprintf("%.0f", float64(m.rssBytes)/float64(m.storedRows))
				peak = megabytes(m.rssPeak)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.system, r.n, rate(m.loadRowsPerSec),
				round(m.hydrate), round(m.freshP50), round(m.freshP99), round(m.peekP50), rate(m.writeRowsPerSec), restart, rss, per, peak)
		}
		return k
	})
	section("load: each way to load min(N, 1M) rows", "system\tN\trows\tINSERT … SELECT\tINSERT … VALUES (1,000 rows)\tCOPY FROM STDIN (text)", func(tw *tabwriter.Writer) (k int) {
		for _, r := range rs {
			if l := r.load; l != nil {
				k++
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t\n", r.system, r.n, l.rows, rate(l.selectRate), rate(l.valuesRate), rate(l.copyRate))
			}
		}
		return k
	})
	section("threeway and distinct: one view each", "system\tN\tview\thydrate\tfresh p50\tfresh p99\twrites rows/s", func(tw *tabwriter.Writer) (k int) {
		for _, r := range rs {
			for _, v := range []struct {
				name string
				r    *viewResult
			}{{"3-way join", r.threeway}, {"count(DISTINCT)", r.distinct}} {
				if v.r != nil {
					k++
					fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", r.system, r.n, v.name, round(v.r.hydrate), round(v.r.freshP50), round(v.r.freshP99), rate(v.r.writeRowsPerSec))
				}
			}
		}
		return k
	})
	section(fmt.Sprintf("shared-index: %d views over one index (growth: after the view less before it)", sharedViews),
		"system\tN\tindex on\tCREATE INDEX\thydrate 1st\thydrate 10th\tRSS +1st\tRSS +10th\tlive heap +1st\tlive heap +10th\tviews importing it", func(tw *tabwriter.Writer) (k int) {
			for _, r := range rs {
				for _, s := range r.shared {
					k++
					index, importers := "—", "—"
					if s.index > 0 {
						index = round(s.index)
					}
					if s.importers >= 0 {
						importers = fmt.Sprintf("%d of %d", s.importers, sharedViews)
					}
					last := len(s.hydrate) - 1
					fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.system, r.n, s.on, index, round(s.hydrate[0]), round(s.hydrate[last]),
						growth(s.rssGrowth, 0), growth(s.rssGrowth, last), growth(s.heapGrowth, 0), growth(s.heapGrowth, last), importers)
				}
			}
			return k
		})
	section("many-views: small views over one table, all alive", "system\tN\tviews\tcreate all\tRSS a view\tlive heap a view\tfresh p50\tfresh p99\twrites rows/s", func(tw *tabwriter.Writer) (k int) {
		for _, r := range rs {
			if m := r.many; m != nil {
				k++
				rss, heap := "—", "—"
				if m.rssPerView != 0 || m.heapPerView != 0 {
					rss, heap = kilobytes(m.rssPerView), kilobytes(m.heapPerView)
				}
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.system, r.n, m.views, round(m.create), rss, heap, round(m.freshP50), round(m.freshP99), rate(m.writeRowsPerSec))
			}
		}
		return k
	})
	section("memory after main: each object's dataflow, and its exported arrangement summed over workers", "system\tN\tobject\tkind\tdataflow bytes\trecords\tarrangement bytes\tbytes/record", func(tw *tabwriter.Writer) (k int) {
		for _, r := range rs {
			if r.memory == nil {
				continue
			}
			arr := map[string]arrangementMemory{}
			for _, a := range r.memory.arrangements {
				arr[a.object] = a
			}
			for _, d := range r.memory.dataflows {
				k++
				a := arr[d.object]
				per := "—"
				if a.records > 0 {
					per = fmt.Sprintf("%.0f", float64(a.bytes)/float64(a.records))
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t\n", r.system, r.n, d.object, d.kind, megabytes(d.bytes), a.records, megabytes(a.bytes), per)
			}
		}
		return k
	})
	section("memory after main: RSS = Go heap in use + heap idle not released + runtime + not Go's", "system\tN\tRSS\theap in use\tidle not released\truntime\tnot Go's\tlive heap\tarrangements\tdataflows", func(tw *tabwriter.Writer) (k int) {
		for _, r := range rs {
			m := r.memory
			if m == nil {
				continue
			}
			k++
			st := m.stats
			idle := st["HeapIdle"] - st["HeapReleased"]
			runtime := st["StackSys"] + st["MSpanSys"] + st["MCacheSys"] + st["BuckHashSys"] + st["GCSys"] + st["OtherSys"]
			other := m.rss - st["HeapInuse"] - idle - runtime
			var arr, df int64
			for _, a := range m.arrangements {
				arr += a.bytes
			}
			for _, d := range m.dataflows {
				df += d.bytes
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.system, r.n, megabytes(m.rss), megabytes(st["HeapInuse"]), megabytes(idle),
				megabytes(runtime), megabytes(other), megabytes(m.liveHeap), megabytes(arr), megabytes(df))
		}
		return k
	})
	section(fmt.Sprintf("memory: every view and table dropped (each read after a collection and %v)", dropPause),
		"system\tN\theap in use before\tafter\tRSS before\tafter\theap released after\tarrangement bytes after", func(tw *tabwriter.Writer) (k int) {
			for _, r := range rs {
				m := r.memory
				if m == nil || m.after.rss == 0 {
					continue
				}
				k++
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.system, r.n, megabytes(m.before.heapInuse), megabytes(m.after.heapInuse),
					megabytes(m.before.rss), megabytes(m.after.rss), megabytes(m.after.heapReleased), megabytes(m.after.arrangementBytes))
			}
			return k
		})
}

func rate(perSec float64) string { return fmt.Sprintf("%.0fk", perSec/1000) }

func megabytes(b int64) string {
	if b > -10e6 && b < 10e6 {
		return fmt.Sprintf("%.1f MB", float64(b)/1e6)
	}
	return fmt.Sprintf("%.0f MB", float64(b)/1e6)
}

func kilobytes(b int64) string { return fmt.Sprintf("%.0f KB", float64(b)/1e3) }

// growth shows gs[i], or "—" when it was not measured.
func growth(gs []int64, i int) string {
	if gs == nil {
		return "—"
	}
	return megabytes(gs[i])
}

// round shows a duration with three significant digits at most.
func round(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}
