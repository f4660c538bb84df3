package main

// The collector: every -interval, one row of timeseries.csv under the metric names skysim
// writes for the same quantities (scenarios/kind_dataplane.cpp, scenarios/runner.cpp), with
// skysim's labels for the one data-plane host of the east datacenter. Counters are cumulative
// over the run, across restarts, as skysim's are. Quantities skysim has no series for are
// testbed.*. A value that could not be read (the process is down, its debug endpoint did not
// answer in time) is an empty cell, never a guess.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	"skysim.local/testbed/internal/sideport"
)

const host = "dc=east;host=east/dataplane/0"

func hostMetric(name string) string { return name + "{" + host + "}" }

// dialKinds are the dial-error columns; the data plane's "syscall/ERRNO" keys map onto them.
var dialKinds = []string{"bind/EADDRINUSE", "connect/EADDRNOTAVAIL", "connect/ECONNREFUSED", "timeout", "other"}

func dialMetric(kind string) string {
	sys, errno, ok := strings.Cut(kind, "/")
	if !ok {
		return "memcached.dial_errors{dc=east;errno=" + kind + ";host=east/dataplane/0}"
	}
	return "memcached.dial_errors{dc=east;errno=" + errno + ";host=east/dataplane/0;syscall=" + sys + "}"
}

// counters read from the data plane's /debug/stats that restart from zero with the process.
var dataPlaneCounters = map[string]string{
	"bind_errors":  "memcached.bind_errors",
	"cache_errors": "memcached.cache_errors",
	"log_lines":    "log.lines_written",
	"uris":         "dataplane.uris",
	"scylla_reads": "dataplane.scylla_reads",
}

type collector struct {
	debugURL, loadgenURL string
	source               net.IP
	lim                  *memLimit
	client               *http.Client

	columns       []string
	base, last    map[string]float64 // per-process counters: sum of dead processes, current one
	lastPID       int
	threadsPeak   int64
	out           io.Writer
	headerWritten bool
}

func newCollector(out io.Writer, debugURL, loadgenURL string, source net.IP, lim *memLimit) *collector {
	c := &collector{debugURL: debugURL, loadgenURL: loadgenURL, source: source, lim: lim, out: out,
		// ports 30000-32767 of 127.0.0.3, outside the ephemeral range (package sideport)
		client: sideport.Client(&sideport.Dialer{Source: net.IPv4(127, 0, 0, 3), Lo: 30000, Hi: 32767}, 400*time.Millisecond),
		base:   map[string]float64{}, last: map[string]float64{}}
	for _, m := range []string{"dataplane.up", "go.threads", "go.threads_peak", "go.goroutines",
		"go.heap_bytes", "go.rss_bytes", "go.stw_last_ns", "go.stw_peak_ns", "go.crashes",
		"go.oom_kills", "go.ms_in_syscall", "log.lines_written", "memcached.bind_errors",
		"memcached.cache_errors", "tcp.time_wait", "dataplane.uris", "dataplane.scylla_reads",
		"testbed.restarts", "testbed.watchdog_kills", "testbed.threads_created", "testbed.threads_in_write",
		"testbed.threads_in_bind", "testbed.threads_in_connect", "testbed.time_wait_fixed_source",
		"testbed.cache_conns", "testbed.pool_idle", "testbed.cgroup_bytes", "testbed.gc_count"} {
		c.columns = append(c.columns, hostMetric(m))
	}
	for _, k := range dialKinds {
		c.columns = append(c.columns, dialMetric(k))
	}
	c.columns = append(c.columns, "user.requests.good{dc=east}", "user.requests.bad{dc=east}")
	for _, cl := range []string{"app-users", "batch-service"} {
		for _, m := range []string{"issued", "ok", "failed", "late"} {
			c.columns = append(c.columns, "requests."+m+"{client="+cl+";endpoint=GetPostRecord}")
		}
	}
	sort.Strings(c.columns)
	return c
}

func (c *collector) getJSON(url string, v any) error {
	resp, err := c.client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

// counter records a per-process counter's current value and returns its run-wide total.
func (c *collector) counter(name string, v float64) float64 {
	c.last[name] = v
	return c.base[name] + v
}

// sample writes one row at elapsed; st is the supervisor's view (pid 0 = down).
func (c *collector) sample(elapsed time.Duration, st supervisorState) error {
	row := map[string]string{}
	set := func(name string, v float64) { row[name] = fmt.Sprintf("%.10g", v) }
	if st.pid != c.lastPID { // a new process: fold the last one's counters into the base
		for k, v := range c.last {
			c.base[k] += v
		}
		c.last = map[string]float64{}
		c.lastPID = st.pid
	}
	up := 0.0
	if st.pid != 0 {
		up = 1
		if p, err := readProc(st.pid); err == nil {
			if p.threads > c.threadsPeak {
				c.threadsPeak = p.threads
			}
			set(hostMetric("go.threads"), float64(p.threads))
			set(hostMetric("go.rss_bytes"), float64(p.rssBytes))
			set(hostMetric("testbed.threads_in_write"), float64(p.inWrite))
			set(hostMetric("testbed.threads_in_bind"), float64(p.inBind))
			set(hostMetric("testbed.threads_in_connect"), float64(p.inConnect))
			set(hostMetric("go.ms_in_syscall"), float64(p.inWrite+p.inBind+p.inConnect))
		}
		var d struct {
			Goroutines     int64            `json:"goroutines"`
			ThreadsCreated int64            `json:"threads_created"`
			HeapAlloc      int64            `json:"heap_alloc"`
			NumGC          int64            `json:"num_gc"`
			PauseLast      int64            `json:"pause_last_ns"`
			PausePeak      int64            `json:"pause_peak_ns"`
			IdleConns      int64            `json:"idle_conns"`
			DialErrors     map[string]int64 `json:"dial_errors"`
		}
		var raw map[string]any
		if err := c.getJSON(c.debugURL, &raw); err == nil {
			b, _ := json.Marshal(raw)
			json.Unmarshal(b, &d)
			set(hostMetric("go.goroutines"), float64(d.Goroutines))
			set(hostMetric("testbed.threads_created"), float64(d.ThreadsCreated))
			set(hostMetric("go.heap_bytes"), float64(d.HeapAlloc))
			set(hostMetric("go.stw_last_ns"), float64(d.PauseLast))
			set(hostMetric("testbed.pool_idle"), float64(d.IdleConns))
			set(hostMetric("testbed.gc_count"), c.counter("gc_count", float64(d.NumGC)))
			peak := float64(d.PausePeak)
			if p := c.base["stw_peak"]; p > peak {
				peak = p
			}
			c.base["stw_peak"] = peak // a peak, not a sum: kept across restarts as the max
			set(hostMetric("go.stw_peak_ns"), peak)
			for field, metric := range dataPlaneCounters {
				if v, ok := raw[field].(float64); ok {
					set(hostMetric(metric), c.counter(metric, v))
				}
			}
			byColumn := map[string]float64{}
			for k, v := range d.DialErrors {
				known := false
				for _, dk := range dialKinds {
					if k == dk {
						known = true
					}
				}
				if !known {
					k = "other"
				}
				byColumn[k] += float64(v)
			}
			for _, k := range dialKinds {
				set(dialMetric(k), c.counter("dial:"+k, byColumn[k]))
			}
		}
	} else {
		for _, m := range []string{"go.threads", "go.goroutines", "go.rss_bytes", "testbed.threads_in_write",
			"testbed.threads_in_bind", "testbed.threads_in_connect", "go.ms_in_syscall"} {
			set(hostMetric(m), 0) // no process: nothing runs
		}
		// run-wide counters carry their totals through the time the process is down
		for _, metric := range dataPlaneCounters {
			set(hostMetric(metric), c.base[metric]+c.last[metric])
		}
		for _, k := range dialKinds {
			set(dialMetric(k), c.base["dial:"+k]+c.last["dial:"+k])
		}
	}
	set(hostMetric("dataplane.up"), up)
	set(hostMetric("go.threads_peak"), float64(c.threadsPeak))
	set(hostMetric("go.crashes"), float64(st.deaths))
	set(hostMetric("go.oom_kills"), float64(st.oomKills))
	set(hostMetric("testbed.restarts"), float64(st.restarts))
	set(hostMetric("testbed.watchdog_kills"), float64(st.watchdogKills))
	if tw, twSrc, est, err := timeWait(11211, c.source); err == nil {
		set(hostMetric("tcp.time_wait"), float64(tw))
		set(hostMetric("testbed.time_wait_fixed_source"), float64(twSrc))
		set(hostMetric("testbed.cache_conns"), float64(est))
	}
	if u := c.lim.usage(); u >= 0 {
		set(hostMetric("testbed.cgroup_bytes"), float64(u))
	}
	var lg map[string]float64
	if err := c.getJSON(c.loadgenURL, &lg); err == nil {
		set("user.requests.good{dc=east}", lg["app-users.ok"])
		set("user.requests.bad{dc=east}", lg["app-users.failed"]+lg["app-users.skipped"])
		for _, cl := range []string{"app-users", "batch-service"} {
			for _, m := range []string{"issued", "ok", "failed", "late"} {
				set("requests."+m+"{client="+cl+";endpoint=GetPostRecord}", lg[cl+"."+m])
			}
		}
	}
	var sb strings.Builder
	if !c.headerWritten {
		sb.WriteString("time_ns,time_s," + strings.Join(c.columns, ",") + "\n")
		c.headerWritten = true
	}
	fmt.Fprintf(&sb, "%d,%.10g", elapsed.Nanoseconds(), elapsed.Seconds())
	for _, col := range c.columns {
		sb.WriteString("," + row[col])
	}
	sb.WriteString("\n")
	_, err := io.WriteString(c.out, sb.String())
	return err
}
