package main

// GetPostRecord: one goroutine per URI through errgroup, with SetLimit or (as it was) without.
// Each URI is read from memcached; on a miss or an error it is read from Scylla and written
// back — after a failed get too (-set-after-error, the default): the post-mortem's logged
// "failed to set post cache item" with bind EADDRINUSE is a set whose dial failed, which the
// handler reached only through a get that failed the same way (a miss needs a connection), and
// skysim's DataPlaneHost::fetch_post does the same. Every cache error goes to the error sink.

import (
	"fmt"
	"math/rand"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

type dataPlane struct {
	cache  *cacheClient
	scylla *scylla
	errs   *errorSink
	limit  int // GetPostRecord's errgroup limit; <= 0: none (the bug)
	// write back after a failed get as after a miss (the post-mortem's handler); false: after
	// a miss only
	setAfterError bool
	posts         int      // key space of post ids
	ballast       [][]byte // the long-lived heap, kept reachable
	uris          atomic.Int64
	scyllaN       atomic.Int64

	rngMu sync.Mutex
	rng   *rand.Rand
}

func (d *dataPlane) fetch(key string) []byte {
	v, err := d.cache.Get(key)
	if err == nil {
		return v
	}
	if err != errCacheMiss {
		d.errs.cacheError(err)
	}
	v = d.scylla.read(key)
	d.scyllaN.Add(1)
	if err == errCacheMiss || d.setAfterError {
		if serr := d.cache.Set(key, v); serr != nil {
			d.errs.cacheError(serr)
		}
	}
	return v
}

func (d *dataPlane) getPostRecord(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.URL.Query().Get("uris"))
	if err != nil || n < 1 || n > 100000 {
		http.Error(w, "uris must be 1..100000", http.StatusBadRequest)
		return
	}
	keys := make([]string, n)
	d.rngMu.Lock()
	for i := range keys {
		keys[i] = fmt.Sprintf("post:%d", d.rng.Intn(d.posts))
	}
	d.rngMu.Unlock()
	d.uris.Add(int64(n))

	records := make([][]byte, n)
	var g errgroup.Group
	if d.limit > 0 {
		g.SetLimit(d.limit)
	}
	for i := range keys {
		i := i
		g.Go(func() error {
			records[i] = d.fetch(keys[i])
			return nil
		})
	}
	g.Wait()
	bytes := 0
	for _, rec := range records {
		bytes += len(rec)
	}
	fmt.Fprintf(w, "%d records %d bytes\n", n, bytes)
}
