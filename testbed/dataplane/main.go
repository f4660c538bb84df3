// dataplane: the April data plane's GetPostRecord path, for the testbed (docs/testbed.md).
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "the API's address")
	debugAddr := flag.String("debug", "127.0.0.1:6060", "the /debug/stats address")
	cacheAddr := flag.String("memcached", "127.0.0.1:11211", "memcached's address")
	limit := flag.Int("limit", -1, "GetPostRecord's errgroup SetLimit; <= 0: none (as it was)")
	maxIdle := flag.Int("max-idle", 50, "the cache client's MaxIdleConns")
	timeout := flag.Duration("cache-timeout", 500*time.Millisecond, "dial and request timeout (gomemcache's default)")
	dialer := flag.String("dialer", "fixed", "fixed (127.32.0.1), random (127.x.y.z) or default (kernel picks)")
	source := flag.String("source", "127.32.0.1", "the fixed dialer's source address")
	policy := flag.String("log", "go-log", "cache errors: go-log, raw or count")
	setAfterError := flag.Bool("set-after-error", true, "write a record back after a failed get too, not only after a miss (the post-mortem's handler)")
	liveHeapMB := flag.Int("live-heap-mb", 51, "long-lived heap held from the start (MiB)")
	posts := flag.Int("posts", 1000000, "post ids drawn uniformly from this many")
	scyllaMedian := flag.Duration("scylla-median", 600*time.Microsecond, "Scylla read median")
	scyllaP99 := flag.Duration("scylla-p99", 15*time.Millisecond, "Scylla read p99")
	scyllaConc := flag.Int("scylla-concurrency", 256, "concurrent Scylla reads")
	seed := flag.Int64("seed", 1, "seed for keys, Scylla latencies and random sources")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "dataplane: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	errs, err := newErrorSink(*policy)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dataplane:", err)
		os.Exit(2)
	}
	var dial func(string, time.Duration) (net.Conn, error)
	switch *dialer {
	case "fixed":
		ip := net.ParseIP(*source)
		if ip == nil {
			fmt.Fprintf(os.Stderr, "dataplane: bad -source %q\n", *source)
			os.Exit(2)
		}
		dial = fixedSourceDialer(ip)
	case "random":
		dial = randomLoopbackDialer(*seed)
	case "default":
		dial = defaultDialer
	default:
		fmt.Fprintf(os.Stderr, "dataplane: unknown -dialer %q (fixed, random, default)\n", *dialer)
		os.Exit(2)
	}
	// The long-lived heap (caches, connection state) that GOGC scales the next GC's goal by.
	ballast := make([][]byte, *liveHeapMB)
	for i := range ballast {
		ballast[i] = make([]byte, 1<<20)
		for j := 0; j < len(ballast[i]); j += 4096 {
			ballast[i][j] = 1
		}
	}
	d := &dataPlane{
		cache:   &cacheClient{addr: *cacheAddr, maxIdleConns: *maxIdle, timeout: *timeout, dial: dial},
		scylla:  newScylla(*scyllaMedian, *scyllaP99, *scyllaConc, *seed),
		ballast: ballast, errs: errs, limit: *limit, setAfterError: *setAfterError, posts: *posts, rng: rand.New(rand.NewSource(*seed + 1)),
	}
	dbg := http.NewServeMux()
	dbg.Handle("/debug/stats", &statsHandler{d: d})
	go func() { log.Fatal(http.ListenAndServe(*debugAddr, dbg)) }()
	api := http.NewServeMux()
	api.HandleFunc("/GetPostRecord", d.getPostRecord)
	fmt.Printf("dataplane: listening on %s, pid %d, %d MiB live heap\n", *listen, os.Getpid(), len(ballast))
	log.Fatal(http.ListenAndServe(*listen, api))
}
