package main

// What the kernel says about the data plane: its threads and RSS (/proc/PID/status), what each
// thread is blocked in (/proc/PID/task/*/syscall, x86_64 numbers), and the namespace's TIME_WAIT
// sockets towards memcached (/proc/net/tcp is the reader's network namespace).

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// x86_64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl).
const (
	sysWrite   = 1
	sysConnect = 42
	sysBind    = 49
)

type procSample struct {
	threads, rssBytes                   int64
	inWrite, inBind, inConnect, inOther int64 // threads per syscall they are in
}

func readProc(pid int) (procSample, error) {
	var s procSample
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "Threads:":
			s.threads, _ = strconv.ParseInt(f[1], 10, 64)
		case "VmRSS:":
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			s.rssBytes = kb * 1024
		}
	}
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/syscall", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // the thread exited between the glob and the read
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		switch n, _ := strconv.Atoi(f[0]); {
		case f[0] == "running" || f[0] == "-1":
		case n == sysWrite:
			s.inWrite++
		case n == sysBind:
			s.inBind++
		case n == sysConnect:
			s.inConnect++
		default:
			s.inOther++
		}
	}
	return s, nil
}

// hexAddr is an IPv4 address as /proc/net/tcp prints it (the 32-bit word in host order).
func hexAddr(ip net.IP) string {
	v4 := ip.To4()
	return fmt.Sprintf("%02X%02X%02X%02X", v4[3], v4[2], v4[1], v4[0])
}

// timeWait counts TIME_WAIT sockets to remotePort: all of them, and those whose local address
// is source.
func timeWait(remotePort int, source net.IP) (all, fromSource, established int64, err error) {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	wantRemote := fmt.Sprintf(":%04X", remotePort)
	src := hexAddr(source)
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) < 4 || !strings.HasSuffix(fl[2], wantRemote) {
			continue
		}
		switch fl[3] {
		case "06": // TCP_TIME_WAIT
			all++
			if strings.HasPrefix(fl[1], src+":") {
				fromSource++
			}
		case "01": // TCP_ESTABLISHED
			established++
		}
	}
	return all, fromSource, established, sc.Err()
}
