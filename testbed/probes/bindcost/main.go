// bindcost: what a failing bind(127.32.0.1, 0) costs on this kernel once TIME_WAIT holds the
// whole ephemeral range, and how many OS threads the Go runtime makes when many goroutines
// hit it at once (docs/testbed.md "Why skysim had twice the threads"). Run inside a namespace
// of its own with a narrowed range (bindcost.sh): it fills the range with TIME_WAIT sockets
// from 127.32.0.1 towards a listener of its own, then
//  1. times -n failing socket(2)+bind(2) pairs on one thread (the kernel's port search);
//  2. times -n failing net.Dialer{LocalAddr}.Dial calls, one at a time (Go's dial path);
//  3. starts -burst goroutines that each make one failing Dial and logs the error through
//     -log (go-log: log.Logger to a pipe drained by nobody here, so count the threads only
//     for the dials: "none"), and reports the threads created (threadcreate profile).
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"sync"
	"syscall"
	"time"
)

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bindcost:", err)
		os.Exit(1)
	}
}

func threads() int { return pprof.Lookup("threadcreate").Count() }

func quantiles(d []time.Duration) string {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	q := func(p float64) time.Duration { return d[int(p*float64(len(d)-1))] }
	return fmt.Sprintf("median %v p90 %v p99 %v max %v", q(0.5), q(0.9), q(0.99), d[len(d)-1])
}

func main() {
	n := flag.Int("n", 2000, "timed attempts per measurement")
	burst := flag.Int("burst", 1000, "goroutines in the burst")
	fill := flag.Bool("fill", true, "fill the range with TIME_WAIT first (false: the burst's dials succeed)")
	traceOut := flag.String("trace", "", "write a runtime/trace of the burst to this file")
	flag.Parse()
	src := net.IPv4(127, 32, 0, 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { b := make([]byte, 1); c.Read(b); c.Close() }()
		}
	}()
	addr := ln.Addr().String()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: src}, Timeout: 500 * time.Millisecond}
	// Fill: bind(127.32.0.1, 0), connect and close first (the client's TIME_WAIT), until bind
	// fails; each successful bind(2) timed, by how full the range already was.
	filled := 0
	var byFill [10][]time.Duration
	lport := ln.Addr().(*net.TCPAddr).Port
	for ; *fill && filled < 100000; filled++ {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		must(err)
		t0 := time.Now()
		err = syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 32, 0, 1}})
		el := time.Since(t0)
		if err != nil {
			syscall.Close(fd)
			break
		}
		if filled < 1412 {
			byFill[filled*10/1412] = append(byFill[filled*10/1412], el)
		}
		must(syscall.Connect(fd, &syscall.SockaddrInet4{Port: lport, Addr: [4]byte{127, 0, 0, 1}}))
		syscall.Close(fd)
	}
	fmt.Printf("filled %d ports of the range with TIME_WAIT from %v\n", filled, src)
	for i, b := range byFill {
		if len(b) > 0 {
			fmt.Printf("  successful bind(2) with %d-%d%% of the range held: %s\n", i*10, i*10+10, quantiles(b))
		}
	}

	if !*fill {
		*n = 0 // only the burst, of dials that succeed
	}
	// 1. the kernel's failing port search, one thread
	runtime.LockOSThread()
	sa := &syscall.SockaddrInet4{Addr: [4]byte{127, 32, 0, 1}}
	var raw []time.Duration
	fails := 0
	for i := 0; i < *n; i++ {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		must(err)
		t0 := time.Now()
		err = syscall.Bind(fd, sa)
		raw = append(raw, time.Since(t0))
		if err == syscall.EADDRINUSE {
			fails++
		}
		syscall.Close(fd)
	}
	runtime.UnlockOSThread()
	if *n > 0 {
		fmt.Printf("bind(2) failing (%d of %d EADDRINUSE): %s\n", fails, *n, quantiles(raw))
	}

	// 2. Go's dial path, one at a time
	var dials []time.Duration
	for i := 0; i < *n; i++ {
		t0 := time.Now()
		c, err := d.Dial("tcp", addr)
		dials = append(dials, time.Since(t0))
		if err == nil {
			c.Close()
		}
	}
	if *n > 0 {
		fmt.Printf("net.Dialer.Dial failing, one at a time: %s\n", quantiles(dials))
	}

	// 3. a burst, as a batch's goroutines hit the full range
	before := threads()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var burstD []time.Duration
	ok := 0
	start := make(chan struct{})
	for i := 0; i < *burst; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			t0 := time.Now()
			c, err := d.Dial("tcp", addr)
			el := time.Since(t0)
			mu.Lock()
			if err == nil {
				ok++
				defer c.Close() // held to the end of the burst, as a batch's connections are
			}
			burstD = append(burstD, el)
			mu.Unlock()
		}()
	}
	if *traceOut != "" {
		f, err := os.Create(*traceOut)
		must(err)
		must(trace.Start(f))
		defer f.Close()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	if *traceOut != "" {
		trace.Stop()
	}
	fmt.Printf("burst of %d dials (%d succeeded), GOMAXPROCS=%d: %v in all, threads %d -> %d; each %s\n",
		*burst, ok, runtime.GOMAXPROCS(0), time.Since(t0), before, threads(), quantiles(burstD))
}
