package main

// The debug endpoint the collector polls: what only the Go runtime knows (goroutines, the
// threads it created, GC pauses, heap) and the handler's counters, as one JSON object.

import (
	"encoding/json"
	"net/http"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"time"
)

type statsHandler struct {
	d *dataPlane

	mu        sync.Mutex
	peakPause time.Duration
}

func (s *statsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var gc debug.GCStats
	debug.ReadGCStats(&gc)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var last time.Duration
	s.mu.Lock()
	if len(gc.Pause) > 0 {
		last = gc.Pause[0]
	}
	for _, p := range gc.Pause { // the runtime keeps the last 256
		if p > s.peakPause {
			s.peakPause = p
		}
	}
	peak := s.peakPause
	s.mu.Unlock()
	out := map[string]any{
		"goroutines":      runtime.NumGoroutine(),
		"threads_created": pprof.Lookup("threadcreate").Count(),
		"heap_alloc":      ms.HeapAlloc,
		"sys_bytes":       ms.Sys,
		"num_gc":          gc.NumGC,
		"pause_last_ns":   last.Nanoseconds(),
		"pause_peak_ns":   peak.Nanoseconds(),
		"pause_total_ns":  gc.PauseTotal.Nanoseconds(),
		"cache_errors":    s.d.errs.cacheErrors.Load(),
		"bind_errors":     s.d.errs.bindErrors.Load(),
		"log_lines":       s.d.errs.linesOut.Load(),
		"dial_errors":     s.d.errs.kinds(),
		"uris":            s.d.uris.Load(),
		"scylla_reads":    s.d.scyllaN.Load(),
		"idle_conns":      s.d.cache.idleCount(),
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}
