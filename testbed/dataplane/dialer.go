package main

// The two dialers of the post-mortem. As it was: every connection bound to the one source
// address 127.32.0.1 (port 0, so bind(2) searches the ephemeral range and fails with
// EADDRINUSE once every port is held, TIME_WAIT included). The band-aid: a random 127.x.y.z
// source per dial, so each address has its own ports.

import (
	"math/rand"
	"net"
	"sync"
	"time"
)

func fixedSourceDialer(source net.IP) func(string, time.Duration) (net.Conn, error) {
	return func(addr string, timeout time.Duration) (net.Conn, error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: source}, Timeout: timeout}
		return d.Dial("tcp", addr)
	}
}

func randomLoopbackDialer(seed int64) func(string, time.Duration) (net.Conn, error) {
	var mu sync.Mutex
	rng := rand.New(rand.NewSource(seed))
	return func(addr string, timeout time.Duration) (net.Conn, error) {
		mu.Lock()
		// 127.1-254.0-255.1-254: never 127.0.x.x, so never the server's own 127.0.0.1.
		ip := net.IPv4(127, byte(1+rng.Intn(254)), byte(rng.Intn(256)), byte(1+rng.Intn(254)))
		mu.Unlock()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: timeout}
		return d.Dial("tcp", addr)
	}
}

// defaultDialer leaves the source to the kernel (connect(2) without bind(2)).
func defaultDialer(addr string, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("tcp", addr, timeout)
}
