// Counts the OS threads a real Go process ends with after a burst of failed dials — the April
// 2026 data plane's batch of goroutines each failing its memcached dial with `bind: address
// already in use` — on this machine's kernel and cores. It is the experiment the replay's
// thread models (docs/april-2026.md, "Which thread mechanism") predict: each failed bind(2)
// searches the whole ephemeral range in the kernel, sysmon hands the P of a goroutine stuck
// there to another M, and how many Ms pile up depends on how the kernel shares the cores.
//
// Usage: burst_probe SOURCE_IP GOROUTINES   (after bind_probe filled SOURCE_IP's range; see
// burst.sh; built with probe_args.go). The process idles first, so sysmon has parked, as between the replay's batches.
// Prints one line of key=value figures. Not part of skysim.
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// threads reads the kernel's count of this process's threads (Go never ends an idle M).
func threads() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		fmt.Fprintln(os.Stderr, "burst_probe:", err)
		os.Exit(1)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := s.Text(); strings.HasPrefix(line, "Threads:") {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Threads:")))
			return n
		}
	}
	return -1
}

func main() {
	source, n := sourceAndCount("burst_probe", "GOROUTINES")
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: source}}
	// One dial first, so the net package's lazy setup is not part of the burst.
	if err := failedDial("burst_probe", &d); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	time.Sleep(200 * time.Millisecond) // every P idle: sysmon backs off and parks
	before := threads()
	var wg sync.WaitGroup
	var failed sync.Map
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := failedDial("burst_probe", &d); err != nil {
				failed.Store(i, err)
			}
		}(i)
	}
	wg.Wait()
	took := time.Since(start)
	bad := 0
	failed.Range(func(_, _ any) bool { bad++; return true })
	fmt.Printf("source=%s gomaxprocs=%d goroutines=%d threads_before=%d threads_after=%d "+
		"burst_ms=%.1f not_eaddrinuse=%d\n", source, runtime.GOMAXPROCS(0), n, before, threads(),
		float64(took.Microseconds())/1e3, bad)
}
