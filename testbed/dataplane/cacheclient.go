package main

// A memcached text-protocol client with gomemcache's pool semantics, written from its
// documentation: up to MaxIdleConns idle connections per server are kept; a request takes an
// idle one or dials a new one when none is idle (there is no cap on open connections); after
// a successful request the connection goes back to the idle list, or is closed when the list
// is already full (the surplus close that leaves the client's side in TIME_WAIT); a
// connection that saw a network error is closed. The same Timeout bounds the dial and each
// request's read/write deadline.

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

var errCacheMiss = errors.New("memcache: cache miss")

type cacheConn struct {
	nc net.Conn
	rw *bufio.ReadWriter
}

type cacheClient struct {
	addr         string
	maxIdleConns int
	timeout      time.Duration
	dial         func(addr string, timeout time.Duration) (net.Conn, error)

	mu   sync.Mutex
	idle []*cacheConn
}

func (c *cacheClient) getConn() (*cacheConn, error) {
	c.mu.Lock()
	if n := len(c.idle); n > 0 {
		cn := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		return cn, nil
	}
	c.mu.Unlock()
	nc, err := c.dial(c.addr, c.timeout)
	if err != nil {
		return nil, err
	}
	return &cacheConn{nc: nc, rw: bufio.NewReadWriter(bufio.NewReader(nc), bufio.NewWriter(nc))}, nil
}

// release keeps a healthy connection idle if there is room, else closes it: the client closes
// first, so the TIME_WAIT is on the client's (source address, port).
func (c *cacheClient) release(cn *cacheConn, err error) {
	if err != nil && err != errCacheMiss {
		cn.nc.Close()
		return
	}
	c.mu.Lock()
	if len(c.idle) < c.maxIdleConns {
		c.idle = append(c.idle, cn)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	cn.nc.Close()
}

func (c *cacheClient) idleCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.idle)
}

func (c *cacheClient) withConn(op func(cn *cacheConn) error) error {
	cn, err := c.getConn()
	if err != nil {
		return err
	}
	cn.nc.SetDeadline(time.Now().Add(c.timeout))
	err = op(cn)
	c.release(cn, err)
	return err
}

// Get returns the value, errCacheMiss, or the network error.
func (c *cacheClient) Get(key string) ([]byte, error) {
	var value []byte
	err := c.withConn(func(cn *cacheConn) error {
		if _, err := fmt.Fprintf(cn.rw, "get %s\r\n", key); err != nil {
			return err
		}
		if err := cn.rw.Flush(); err != nil {
			return err
		}
		for {
			line, err := cn.rw.ReadString('\n')
			if err != nil {
				return err
			}
			if line == "END\r\n" {
				if value == nil {
					return errCacheMiss
				}
				return nil
			}
			// VALUE <key> <flags> <bytes>
			f := strings.Fields(line)
			if len(f) < 4 || f[0] != "VALUE" {
				return fmt.Errorf("memcache: unexpected line %q", line)
			}
			n, err := strconv.Atoi(f[3])
			if err != nil {
				return fmt.Errorf("memcache: bad length in %q", line)
			}
			buf := make([]byte, n+2)
			if _, err := readFull(cn.rw, buf); err != nil {
				return err
			}
			value = buf[:n]
		}
	})
	return value, err
}

// Set stores value under key with no expiry.
func (c *cacheClient) Set(key string, value []byte) error {
	return c.withConn(func(cn *cacheConn) error {
		if _, err := fmt.Fprintf(cn.rw, "set %s 0 0 %d\r\n", key, len(value)); err != nil {
			return err
		}
		cn.rw.Write(value)
		cn.rw.WriteString("\r\n")
		if err := cn.rw.Flush(); err != nil {
			return err
		}
		line, err := cn.rw.ReadString('\n')
		if err != nil {
			return err
		}
		if line != "STORED\r\n" {
			return fmt.Errorf("memcache: set answered %q", line)
		}
		return nil
	})
}

func readFull(r *bufio.ReadWriter, buf []byte) (int, error) {
	got := 0
	for got < len(buf) {
		n, err := r.Read(buf[got:])
		got += n
		if err != nil {
			return got, err
		}
	}
	return got, nil
}
