// Package sideport dials the testbed's own side traffic (the load generator's users, the
// collector's polls) from explicit source ports outside the namespace's ephemeral range.
//
// Measured on this kernel (docs/testbed.md): once the data plane's bind(127.32.0.1, 0) sockets
// hold every ephemeral port, in TIME_WAIT or not, a connect(2) without bind from any other
// local address fails with EADDRNOTAVAIL too, since connect's port search skips every port
// whose bind bucket came from bind(2). Users on other hosts would not share that range; the
// testbed's users and collector live in the same namespace, so they step out of it.
package sideport

import (
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// Dialer hands out source ports lo..hi in turn from source. SO_REUSEADDR lets a port be bound
// again while an old connection from it is still in TIME_WAIT (the 4-tuple differs or
// tcp_tw_reuse's loopback default allows it).
type Dialer struct {
	Source net.IP
	Lo, Hi int

	mu   sync.Mutex
	next int
}

func (d *Dialer) port() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.next < d.Lo || d.next > d.Hi {
		d.next = d.Lo
	}
	p := d.next
	d.next++
	return p
}

func reuseAddr(network, address string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	})
	if err != nil {
		return err
	}
	return serr
}

// Dial tries up to 16 ports before giving up (a port may still be bound by a live socket).
func (d *Dialer) Dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	var err error
	for i := 0; i < 16; i++ {
		nd := net.Dialer{LocalAddr: &net.TCPAddr{IP: d.Source, Port: d.port()}, Timeout: timeout, Control: reuseAddr}
		var c net.Conn
		if c, err = nd.Dial(network, addr); err == nil {
			return c, nil
		}
	}
	return nil, err
}

// Client is an HTTP client whose connections come from d.
func Client(d *Dialer, timeout time.Duration) *http.Client {
	tr := &http.Transport{
		Dial:                func(network, addr string) (net.Conn, error) { return d.Dial(network, addr, timeout) },
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
	}
	return &http.Client{Transport: tr, Timeout: timeout}
}
