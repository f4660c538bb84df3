// Shared by dial_probe.go and burst_probe.go (each built with this file; see measure.sh and
// burst.sh): their command line and the failed dial both measure. Not part of skysim.
package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
)

// sourceAndCount reads "SOURCE_IP COUNT" or exits with status 2 and the usage.
func sourceAndCount(prog, count string) (net.IP, int) {
	if len(os.Args) != 3 {
		fmt.Fprintf(os.Stderr, "usage: %s SOURCE_IP %s\n", prog, count)
		os.Exit(2)
	}
	source := net.ParseIP(os.Args[1])
	n, err := strconv.Atoi(os.Args[2])
	if source == nil || err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "%s: SOURCE_IP must be an IPv4 address, %s >= 1\n", prog, count)
		os.Exit(2)
	}
	return source, n
}

// failedDial dials the memcached port from d's source address; a dial that does not fail
// with EADDRINUSE means the range was not full, and the figures would be meaningless.
func failedDial(prog string, d *net.Dialer) error {
	_, err := d.Dial("tcp", "127.0.0.1:11311")
	if !errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%s: dial did not fail with EADDRINUSE: %v", prog, err)
	}
	return nil
}
