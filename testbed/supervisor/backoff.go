package main

// The restart policy. kubelet: the delay before a restart starts at 10 s, doubles after each
// restart up to 5 min, and goes back to 10 s once a container ran 10 min (Kubernetes'
// CrashLoopBackOff, as documented). fixed: the same delay every time.

import (
	"fmt"
	"strings"
	"time"
)

type backoff struct {
	fixed   time.Duration // > 0: a fixed delay
	next    time.Duration
	initial time.Duration
	max     time.Duration
	resetUp time.Duration
}

func parseBackoff(spec string) (*backoff, error) {
	if spec == "kubelet" {
		return &backoff{initial: 10 * time.Second, next: 10 * time.Second, max: 5 * time.Minute,
			resetUp: 10 * time.Minute}, nil
	}
	if strings.HasPrefix(spec, "fixed:") {
		v, err := time.ParseDuration(strings.TrimPrefix(spec, "fixed:"))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bad -restart %q: want fixed:DURATION", spec)
		}
		return &backoff{fixed: v}, nil
	}
	return nil, fmt.Errorf("bad -restart %q: want kubelet or fixed:DURATION", spec)
}

// delay is the wait before restarting a container that ran for up.
func (b *backoff) delay(up time.Duration) time.Duration {
	if b.fixed > 0 || b.initial == 0 {
		return b.fixed
	}
	if up >= b.resetUp {
		b.next = b.initial
	}
	d := b.next
	b.next *= 2
	if b.next > b.max {
		b.next = b.max
	}
	return d
}
