package main

// A stand-in for the host's share of Scylla: a read is a sleep drawn from a lognormal (median
// and p99 from scenarios' dataplane defaults, 600 us and 15 ms), behind a concurrency limit.

import (
	"math"
	"math/rand"
	"sync"
	"time"
)

type scylla struct {
	mu    sync.Mutex
	rng   *rand.Rand
	mu0   float64 // log of the median, in seconds
	sigma float64
	slots chan struct{}
}

func newScylla(median, p99 time.Duration, concurrency int, seed int64) *scylla {
	const z99 = 2.3263478740408408 // the standard normal's 99th percentile
	return &scylla{rng: rand.New(rand.NewSource(seed)), mu0: math.Log(median.Seconds()),
		sigma: math.Log(p99.Seconds()/median.Seconds()) / z99, slots: make(chan struct{}, concurrency)}
}

func (s *scylla) read(key string) []byte {
	s.slots <- struct{}{}
	s.mu.Lock()
	d := time.Duration(math.Exp(s.mu0+s.sigma*s.rng.NormFloat64()) * float64(time.Second))
	s.mu.Unlock()
	time.Sleep(d)
	<-s.slots
	// A post record's size (assumption: ~500 bytes of JSON).
	return make([]byte, 500)
}
