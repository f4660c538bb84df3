// loadgen: the app's users and the internal batch client, as Poisson arrivals of
// GetPostRecord requests with uniform batch sizes. It serves its cumulative counters (the
// names skysim's runner gives them) on -stats for the collector.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"skysim.local/testbed/internal/sideport"
)

type source struct {
	name                              string // skysim's client name
	rate                              float64
	minURIs, maxURIs                  int
	start                             time.Duration
	deadline                          time.Duration
	issued, ok, failed, late, skipped atomic.Int64
}

func main() {
	target := flag.String("target", "http://127.0.0.1:8080", "the data plane")
	statsAddr := flag.String("stats", "127.0.0.1:9101", "where the counters are served")
	seconds := flag.Int("seconds", 60, "run this long, then stop")
	seed := flag.Int64("seed", 1, "arrival and size seed")
	maxInFlight := flag.Int("max-in-flight", 2000, "requests in flight at most; beyond, counted as skipped")
	users := &source{name: "app-users"}
	batch := &source{name: "batch-service"}
	flag.Float64Var(&users.rate, "users-rate", 5, "user requests per second")
	flag.IntVar(&users.minURIs, "users-min", 1, "")
	flag.IntVar(&users.maxURIs, "users-max", 50, "")
	flag.DurationVar(&users.deadline, "users-deadline", 2*time.Second, "")
	flag.Float64Var(&batch.rate, "batch-rate", 0.05, "batch requests per second after the first")
	flag.IntVar(&batch.minURIs, "batch-min", 750, "")
	flag.IntVar(&batch.maxURIs, "batch-max", 1000, "")
	flag.DurationVar(&batch.start, "batch-start", 10*time.Second, "the first batch is sent at this time")
	flag.DurationVar(&batch.deadline, "batch-deadline", 30*time.Second, "")
	flag.Parse()
	for _, s := range []*source{users, batch} {
		if s.rate < 0 || s.minURIs < 1 || s.maxURIs < s.minURIs || s.deadline <= 0 {
			fmt.Fprintf(os.Stderr, "loadgen: bad settings for %s\n", s.name)
			os.Exit(2)
		}
	}
	http.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		out := map[string]int64{}
		for _, s := range []*source{users, batch} {
			out[s.name+".issued"] = s.issued.Load()
			out[s.name+".ok"] = s.ok.Load()
			out[s.name+".failed"] = s.failed.Load()
			out[s.name+".late"] = s.late.Load()
			out[s.name+".skipped"] = s.skipped.Load()
		}
		json.NewEncoder(w).Encode(out)
	})
	go http.ListenAndServe(*statsAddr, nil)

	// Source ports 10000-29999 of 127.0.0.2, outside the ephemeral range (package sideport).
	dialer := &sideport.Dialer{Source: net.IPv4(127, 0, 0, 2), Lo: 10000, Hi: 29999}
	inFlight := make(chan struct{}, *maxInFlight)
	stop := time.Now().Add(time.Duration(*seconds) * time.Second)
	var wg sync.WaitGroup
	for i, s := range []*source{users, batch} {
		wg.Add(1)
		go func(s *source, rng *rand.Rand) {
			defer wg.Done()
			run(s, dialer, rng, *target, stop, inFlight)
		}(s, rand.New(rand.NewSource(*seed+int64(i))))
	}
	wg.Wait()
}

// run issues s's requests until stop; the batch client's first request goes at s.start
// exactly, so a short run sees the storm at a known time.
func run(s *source, dialer *sideport.Dialer, rng *rand.Rand, target string, stop time.Time, inFlight chan struct{}) {
	if s.rate == 0 {
		return
	}
	client := sideport.Client(dialer, s.deadline)
	next := time.Now().Add(s.start)
	if s.start == 0 {
		next = time.Now().Add(time.Duration(rng.ExpFloat64() / s.rate * float64(time.Second)))
	}
	for next.Before(stop) {
		time.Sleep(time.Until(next))
		n := s.minURIs + rng.Intn(s.maxURIs-s.minURIs+1)
		s.issued.Add(1)
		select {
		case inFlight <- struct{}{}:
			go func() {
				defer func() { <-inFlight }()
				resp, err := client.Get(fmt.Sprintf("%s/GetPostRecord?uris=%d", target, n))
				if err != nil {
					if e, ok := err.(interface{ Timeout() bool }); ok && e.Timeout() {
						s.late.Add(1)
					}
					s.failed.Add(1)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					s.ok.Add(1)
				} else {
					s.failed.Add(1)
				}
			}()
		default:
			s.skipped.Add(1)
		}
		next = next.Add(time.Duration(rng.ExpFloat64() / s.rate * float64(time.Second)))
	}
}
