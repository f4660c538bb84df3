package main

// The container's memory limit. A memory cgroup when the machine has one (v2's memory.max, or
// v1's memory.limit_in_bytes); the kernel's OOM killer then kills inside it, as in a pod. Where
// neither can be made, an RSS watchdog (the collector's loop) kills at the limit instead.

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

type memLimit struct {
	kind   string // "cgroup-v2", "cgroup-v1" or "rss-watchdog"
	dir    string // the cgroup's directory; "" for the watchdog
	bytes  int64
	procs  string // the file a pid is written to to join the cgroup
	events string // where the kernel counts OOM kills
}

func setupMemLimit(name string, bytes int64, force string) (*memLimit, error) {
	try := []string{"cgroup-v2", "cgroup-v1", "rss-watchdog"}
	if force != "" {
		try = []string{force}
	}
	var why []string
	for _, kind := range try {
		m := &memLimit{kind: kind, bytes: bytes}
		var err error
		switch kind {
		case "cgroup-v2":
			err = m.makeV2(name)
		case "cgroup-v1":
			err = m.makeV1(name)
		case "rss-watchdog":
			return m, nil
		default:
			return nil, fmt.Errorf("unknown memory limit kind %q", kind)
		}
		if err == nil {
			return m, nil
		}
		why = append(why, kind+": "+err.Error())
		m.remove()
	}
	return nil, fmt.Errorf("no memory limit possible: %s", strings.Join(why, "; "))
}

func (m *memLimit) makeV2(name string) error {
	root := "/sys/fs/cgroup"
	ctrl, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
	if err != nil || !strings.Contains(string(ctrl), "memory") {
		return fmt.Errorf("no memory controller in %s/cgroup.controllers", root)
	}
	if err := m.create(root, name, "memory.events", "memory.max"); err != nil {
		return err
	}
	// no swap, as a pod has none; absent where the kernel has no swap accounting
	if err := os.WriteFile(filepath.Join(m.dir, "memory.swap.max"), []byte("0"), 0o644); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

func (m *memLimit) makeV1(name string) error {
	root := "/sys/fs/cgroup/memory"
	if _, err := os.Stat(filepath.Join(root, "memory.limit_in_bytes")); err != nil {
		return fmt.Errorf("no v1 memory hierarchy at %s", root)
	}
	return m.create(root, name, "memory.oom_control", "memory.limit_in_bytes")
}

// create makes the cgroup root/name and sets its limit.
func (m *memLimit) create(root, name, events, limitFile string) error {
	m.dir = filepath.Join(root, name)
	if err := os.Mkdir(m.dir, 0o755); err != nil {
		m.dir = ""
		return err
	}
	m.procs = filepath.Join(m.dir, "cgroup.procs")
	m.events = filepath.Join(m.dir, events)
	return os.WriteFile(filepath.Join(m.dir, limitFile), []byte(strconv.FormatInt(m.bytes, 10)), 0o644)
}

// oomKills is the kernel's count of OOM kills in the cgroup ("oom_kill N"), -1 if unknown.
func (m *memLimit) oomKills() int64 {
	if m.events == "" {
		return -1
	}
	b, err := os.ReadFile(m.events)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "oom_kill" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return -1
}

// usage is the cgroup's charged memory (user and kernel), -1 without a cgroup.
func (m *memLimit) usage() int64 {
	file := map[string]string{"cgroup-v2": "memory.current", "cgroup-v1": "memory.usage_in_bytes"}[m.kind]
	if file == "" {
		return -1
	}
	b, err := os.ReadFile(filepath.Join(m.dir, file))
	if err != nil {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func (m *memLimit) remove() {
	if m.dir != "" {
		os.Remove(m.dir)
	}
}
