// The testbed's Go programs. Built offline against Debian's golang-golang-x-sync-dev sources
// (no module download is possible here): the replace points at the Debian package's directory,
// and scripts/testbed.sh builds with GOFLAGS=-mod=mod GOPROXY=off.
module skysim.local/testbed

go 1.19

require golang.org/x/sync v0.1.0

replace golang.org/x/sync => /usr/share/gocode/src/golang.org/x/sync
