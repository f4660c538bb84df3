package main

// What the handler does with a cache error. "go-log": the standard logger to stderr, as Go
// programs log: log.Logger's mutex and os.File's write lock (internal/poll) serialise the
// writers, so one thread blocks in write(2) on a full pipe and the other goroutines park.
// "raw": one unlocked syscall.Write on fd 2 per error (the post-mortem's account: each blocked
// writer holds its own OS thread). "count": counted, never written.

import (
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
)

type errorSink struct {
	policy string
	logger *log.Logger

	cacheErrors atomic.Int64
	bindErrors  atomic.Int64
	linesOut    atomic.Int64 // lines whose write returned

	mu     sync.Mutex
	byKind map[string]int64 // "bind/EADDRINUSE", "connect/ECONNREFUSED", "timeout", "other"
}

func newErrorSink(policy string) (*errorSink, error) {
	switch policy {
	case "go-log", "raw", "count":
	default:
		return nil, fmt.Errorf("unknown -log policy %q (go-log, raw, count)", policy)
	}
	return &errorSink{policy: policy, logger: log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds),
		byKind: map[string]int64{}}, nil
}

var errnoNames = map[syscall.Errno]string{
	syscall.EADDRINUSE: "EADDRINUSE", syscall.EADDRNOTAVAIL: "EADDRNOTAVAIL",
	syscall.ECONNREFUSED: "ECONNREFUSED", syscall.ETIMEDOUT: "ETIMEDOUT",
	syscall.EMFILE: "EMFILE", syscall.ENFILE: "ENFILE", syscall.ECONNRESET: "ECONNRESET",
	syscall.EPIPE: "EPIPE", syscall.ENOBUFS: "ENOBUFS", syscall.EAGAIN: "EAGAIN",
}

// kindOf names the failing syscall and errno of a dial error ("bind/EADDRINUSE").
func kindOf(err error) string {
	var sce *os.SyscallError
	var errno syscall.Errno
	if errors.As(err, &sce) && errors.As(err, &errno) {
		name, ok := errnoNames[errno]
		if !ok {
			name = fmt.Sprintf("E%d", int(errno))
		}
		return sce.Syscall + "/" + name
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	return "other"
}

func (s *errorSink) cacheError(err error) {
	s.cacheErrors.Add(1)
	k := kindOf(err)
	if k == "bind/EADDRINUSE" || k == "connect/EADDRNOTAVAIL" {
		s.bindErrors.Add(1)
	}
	s.mu.Lock()
	s.byKind[k]++
	s.mu.Unlock()
	switch s.policy {
	case "go-log":
		s.logger.Printf("error fetching post record from memcached: %v", err)
		s.linesOut.Add(1)
	case "raw":
		line := []byte(fmt.Sprintf("error fetching post record from memcached: %v\n", err))
		syscall.Write(2, line)
		s.linesOut.Add(1)
	}
}

func (s *errorSink) kinds() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int64, len(s.byKind))
	for k, v := range s.byKind {
		out[k] = v
	}
	return out
}
