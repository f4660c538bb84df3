// Measures the CPU a failed Go dial costs in user space (Go code: net.Dialer, socket setup,
// error path) and in the kernel, when every ephemeral port of the source IP is in TIME_WAIT —
// the data plane's failed memcached dial in April 2026. It pins the data-plane parameter
// `dial_go_cpu` (Go code a goroutine runs on its P around its bind(2)).
//
// Usage: dial_probe SOURCE_IP DIALS   (after bind_probe filled SOURCE_IP's range; see
// measure.sh). Prints one line of key=value figures. Not part of skysim.
package main

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

const rusageThread = 1 // RUSAGE_THREAD on Linux

func cpu() (user, sys float64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		fmt.Fprintln(os.Stderr, "dial_probe: getrusage:", err)
		os.Exit(1)
	}
	return float64(ru.Utime.Nano()), float64(ru.Stime.Nano())
}

// threadCPU reads CLOCK_THREAD_CPUTIME_ID: exact, where rusage splits user and system time by
// sampling at timer ticks (too coarse for a dial of a few microseconds).
func threadCPU() float64 {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID,
		uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		fmt.Fprintln(os.Stderr, "dial_probe: clock_gettime:", e)
		os.Exit(1)
	}
	return float64(ts.Nano())
}

func main() {
	source, dials := sourceAndCount("dial_probe", "DIALS")
	runtime.GOMAXPROCS(1)
	runtime.LockOSThread() // RUSAGE_THREAD then counts this goroutine's dials only
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: source}}
	u0, s0 := cpu()
	c0 := threadCPU()
	for i := 0; i < dials; i++ {
		if err := failedDial("dial_probe", &d); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	c1 := threadCPU()
	u1, s1 := cpu()
	fmt.Printf("source=%s dials=%d cpu_us_per_dial=%.2f user_us_per_dial=%.1f sys_us_per_dial=%.1f\n",
		source, dials, (c1-c0)/float64(dials)/1e3, (u1-u0)/float64(dials)/1e3,
		(s1-s0)/float64(dials)/1e3)
}
