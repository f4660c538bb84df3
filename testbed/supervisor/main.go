// supervisor: plays the container runtime for the data plane. It starts the drain (the log
// pipeline) on a pipe, starts the data plane with its stderr on that pipe, inside a memory
// limit, with GOMEMLIMIT/GOGC/GOMAXPROCS; restarts it after each death with the kubelet's
// back-off or a fixed delay; and runs the collector. It stops everything after -seconds.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

type supervisorState struct {
	pid                                       int // 0 while down
	deaths, oomKills, watchdogKills, restarts int
}

type supervisor struct {
	mu sync.Mutex
	st supervisorState
}

func (s *supervisor) state() supervisorState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

func main() {
	dataplane := flag.String("dataplane", "", "the data-plane binary")
	drain := flag.String("drain", "", "the drain binary")
	drainRate := flag.Int("drain-rate", 100000, "log pipeline drain, bytes/s")
	logOut := flag.String("log-out", "", "where the drain keeps the first log bytes")
	memMiB := flag.Int64("mem-limit-mib", 175, "the container's memory limit (MiB)")
	memKind := flag.String("mem-kind", "", "force cgroup-v2, cgroup-v1 or rss-watchdog (default: the first that works)")
	restart := flag.String("restart", "kubelet", "kubelet or fixed:DURATION")
	seconds := flag.Int("seconds", 60, "run this long")
	out := flag.String("out", "timeseries.csv", "the collector's CSV")
	events := flag.String("events", "events.log", "starts, deaths and restarts, one a line")
	interval := flag.Duration("interval", time.Second, "collector interval (1s or finer)")
	debugURL := flag.String("debug-url", "http://127.0.0.1:6060/debug/stats", "the data plane's stats")
	loadgenURL := flag.String("loadgen-url", "http://127.0.0.1:9101/stats", "the load generator's stats")
	source := flag.String("source", "127.32.0.1", "the fixed source address whose TIME_WAIT is counted apart")
	gomemlimit := flag.String("gomemlimit", "153MiB", "GOMEMLIMIT for the data plane ('' = unset)")
	gogc := flag.String("gogc", "50", "GOGC for the data plane")
	gomaxprocs := flag.String("gomaxprocs", "2", "GOMAXPROCS for the data plane")
	killAt := flag.Duration("kill-at", 0, "kill the data plane once at this time (a deploy's restart; 0 = never)")
	cgName := flag.String("cgroup-name", "skysim-testbed-"+strconv.Itoa(os.Getpid()), "the memory cgroup's name")
	flag.Parse()
	if *dataplane == "" || *drain == "" || *seconds <= 0 || *interval <= 0 || *interval > time.Second {
		fmt.Fprintln(os.Stderr, "supervisor: need -dataplane, -drain, -seconds > 0, 0 < -interval <= 1s")
		os.Exit(2)
	}
	src := net.ParseIP(*source)
	if src == nil {
		fmt.Fprintf(os.Stderr, "supervisor: bad -source %q\n", *source)
		os.Exit(2)
	}
	back, err := parseBackoff(*restart)
	if err != nil {
		fmt.Fprintln(os.Stderr, "supervisor:", err)
		os.Exit(2)
	}
	lim, err := setupMemLimit(*cgName, *memMiB<<20, *memKind)
	if err != nil {
		fmt.Fprintln(os.Stderr, "supervisor:", err)
		os.Exit(1)
	}
	defer lim.remove()
	ev, err := os.Create(*events)
	if err != nil {
		fmt.Fprintln(os.Stderr, "supervisor:", err)
		os.Exit(1)
	}
	defer ev.Close()
	start := time.Now()
	logf := func(format string, a ...any) {
		fmt.Fprintf(ev, "t=%.3fs "+format+"\n", append([]any{time.Since(start).Seconds()}, a...)...)
	}
	logf("memory limit %d MiB by %s", *memMiB, lim.kind)
	fmt.Printf("supervisor: memory limit %d MiB enforced by %s\n", *memMiB, lim.kind)

	pr, pw, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "supervisor:", err)
		os.Exit(1)
	}
	dr := exec.Command(*drain, "-rate", strconv.Itoa(*drainRate), "-out", *logOut,
		"-max-seconds", strconv.Itoa(*seconds+30))
	dr.Stdin, dr.Stderr = pr, os.Stderr
	if err := dr.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "supervisor: drain:", err)
		os.Exit(1)
	}
	pr.Close()

	env := append(os.Environ(), "GOGC="+*gogc, "GOMAXPROCS="+*gomaxprocs)
	if *gomemlimit != "" {
		env = append(env, "GOMEMLIMIT="+*gomemlimit)
	}
	s := &supervisor{}
	stop := start.Add(time.Duration(*seconds) * time.Second)
	var cur *exec.Cmd
	var watchdogKill bool
	done := make(chan struct{})
	go func() { // the container runtime's loop: start, wait, back off, restart
		defer close(done)
		for n := 0; n < 10000 && time.Now().Before(stop); n++ {
			var cmd *exec.Cmd
			if lim.procs != "" { // join the cgroup before exec, so the limit holds from the first byte
				cmd = exec.Command("/bin/sh", append([]string{"-c", `echo $$ > "$CG_PROCS" && exec "$0" "$@"`, *dataplane}, flag.Args()...)...)
				cmd.Env = append(env, "CG_PROCS="+lim.procs)
			} else {
				cmd = exec.Command(*dataplane, flag.Args()...)
				cmd.Env = env
			}
			cmd.Stderr, cmd.Stdout = pw, os.Stdout
			oomBefore := lim.oomKills()
			if err := cmd.Start(); err != nil {
				logf("start failed: %v", err)
				return
			}
			s.mu.Lock()
			cur, watchdogKill = cmd, false
			s.st.pid = cmd.Process.Pid
			if n > 0 {
				s.st.restarts++
			}
			s.mu.Unlock()
			began := time.Now()
			logf("start pid=%d", cmd.Process.Pid)
			err := cmd.Wait()
			up := time.Since(began)
			s.mu.Lock()
			s.st.pid = 0
			cur = nil
			stopping := !time.Now().Before(stop)
			oom := lim.oomKills() > oomBefore && oomBefore >= 0
			if !stopping {
				s.st.deaths++
				if oom {
					s.st.oomKills++
				}
				if watchdogKill {
					s.st.watchdogKills++
					s.st.oomKills++
				}
			}
			s.mu.Unlock()
			if stopping {
				logf("stopped pid=%d at the end of the run (%v)", cmd.ProcessState.Pid(), err)
				return
			}
			d := back.delay(up)
			logf("exit pid=%d status=%q oom_kill=%v watchdog_kill=%v up=%.1fs restart_in=%v",
				cmd.ProcessState.Pid(), cmd.ProcessState.String(), oom, watchdogKill, up.Seconds(), d)
			if wait := time.Until(stop); d > wait {
				d = wait
			}
			time.Sleep(d)
		}
	}()

	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "supervisor:", err)
		os.Exit(1)
	}
	col := newCollector(f, *debugURL, *loadgenURL, src, lim)
	killed := false
	maxTicks := int(time.Duration(*seconds) * time.Second / *interval)
	for k := 1; k <= maxTicks; k++ {
		time.Sleep(time.Until(start.Add(time.Duration(k) * *interval)))
		st := s.state()
		if lim.kind == "rss-watchdog" && st.pid != 0 {
			if p, err := readProc(st.pid); err == nil && p.rssBytes >= lim.bytes {
				s.mu.Lock()
				if cur != nil {
					watchdogKill = true
					cur.Process.Kill()
				}
				s.mu.Unlock()
			}
		}
		if *killAt > 0 && !killed && time.Since(start) >= *killAt && st.pid != 0 {
			killed = true
			logf("kill pid=%d (-kill-at)", st.pid)
			syscall.Kill(st.pid, syscall.SIGKILL)
		}
		if err := col.sample(time.Duration(k)**interval, st); err != nil {
			fmt.Fprintln(os.Stderr, "supervisor: writing", *out, err)
		}
	}
	f.Close()
	// The end: stop the data plane (TERM, then KILL), then the pipeline.
	s.mu.Lock()
	if cur != nil {
		cur.Process.Signal(syscall.SIGTERM)
	}
	s.mu.Unlock()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		s.mu.Lock()
		if cur != nil {
			cur.Process.Kill()
		}
		s.mu.Unlock()
		<-done
	}
	pw.Close()
	drainDone := make(chan error, 1)
	go func() { drainDone <- dr.Wait() }()
	select {
	case <-drainDone:
	case <-time.After(2 * time.Second):
		dr.Process.Kill()
		<-drainDone
	}
	st := s.state()
	logf("end deaths=%d oom_kills=%d watchdog_kills=%d restarts=%d", st.deaths, st.oomKills, st.watchdogKills, st.restarts)
	fmt.Printf("supervisor: %d deaths (%d OOM kills, %d by the watchdog), %d restarts\n",
		st.deaths, st.oomKills, st.watchdogKills, st.restarts)
}
