// drain: the container's log pipeline. Reads stdin (the data plane's stderr pipe) at a set
// rate, so a faster writer fills the pipe's 64 KiB and then blocks in write(2). The first
// -keep bytes go to -out (to check the error text); the rest are counted and dropped.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	rate := flag.Int("rate", 100000, "bytes per second drained")
	out := flag.String("out", "", "file for the first -keep bytes")
	keep := flag.Int64("keep", 8<<20, "bytes kept in -out")
	maxSeconds := flag.Int("max-seconds", 3600, "stop after this long whatever happens")
	flag.Parse()
	if *rate <= 0 {
		fmt.Fprintln(os.Stderr, "drain: -rate must be > 0")
		os.Exit(2)
	}
	var sink io.Writer = io.Discard
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "drain:", err)
			os.Exit(1)
		}
		defer f.Close()
		sink = f
	}
	// 10 reads a second of rate/10 bytes each: the pipe empties in small steps, as a log
	// shipper's reads do.
	const ticks = 10
	chunk := make([]byte, max(1, *rate/ticks))
	var kept, total int64
	deadline := time.Now().Add(time.Duration(*maxSeconds) * time.Second)
	next := time.Now()
	for time.Now().Before(deadline) {
		n, err := io.ReadAtLeast(os.Stdin, chunk, 1)
		total += int64(n)
		if kept < *keep {
			w := int64(n)
			if kept+w > *keep {
				w = *keep - kept
			}
			sink.Write(chunk[:w])
			kept += w
		}
		if err != nil {
			break // EOF: every writer is gone
		}
		next = next.Add(time.Second / ticks)
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
		} else {
			next = time.Now()
		}
	}
	fmt.Fprintf(os.Stderr, "drain: %d bytes drained\n", total)
}

func max(a, b int) int {
	if a > b {
		return a
	}
	return b
}
