#!/usr/bin/env python3
"""Which sockets may use an ephemeral port that a TIME_WAIT socket holds? Run inside a fresh
network namespace whose ip_local_port_range is narrow (tw-connect.sh does it). Fills the whole
range with TIME_WAIT sockets made one way, then tries each way of getting a port, and prints
one line per attempt. Only loopback addresses; every loop is bounded by the range's size."""
import errno
import socket
import sys

IP_BIND_ADDRESS_NO_PORT = 24  # linux/in.h


def port_range():
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        lo, hi = map(int, f.read().split())
    return lo, hi


def fill(listener, how, n):
    """Open and close n connections made `how`, the client closing first (client TIME_WAIT)."""
    for _ in range(n):
        c = socket.socket()
        if how == "bind":
            c.bind(("127.32.0.1", 0))
        try:
            c.connect(("127.0.0.1", listener.getsockname()[1]))
        except OSError as e:
            c.close()
            return e
        s, _ = listener.accept()
        c.close()  # active close: the TIME_WAIT is the client's
        s.close()
    return None


def attempt(name, listener, src=None, no_port=False):
    c = socket.socket()
    try:
        if no_port:
            c.setsockopt(socket.IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, 1)
        if src:
            c.bind((src, 0))
        c.connect(("127.0.0.1", listener.getsockname()[1]))
        res = f"ok, port {c.getsockname()[1]}"
        s, _ = listener.accept()
        s.close()
    except OSError as e:
        res = f"fails: {errno.errorcode.get(e.errno, e.errno)} ({e.strerror})"
    c.close()
    print(f"  {name:62} {res}")


def main():
    how = sys.argv[1]  # bind: TIME_WAIT from bind(127.32.0.1, 0); connect: from connect() alone
    lo, hi = port_range()
    n = hi - lo + 1
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 7000))  # outside the range
    listener.listen(n + 8)
    err = fill(listener, how, n)
    tw = sum(1 for line in open("/proc/net/tcp").readlines()[1:] if line.split()[3] == "06")
    print(f"range {lo}-{hi} ({n} ports), TIME_WAIT made by {how}(): {tw} sockets"
          + (f" (fill stopped: {err})" if err else ""))
    other = socket.socket()  # a second destination: a 4-tuple no TIME_WAIT socket has
    other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    other.bind(("127.0.0.1", 7001))
    other.listen(8)
    attempt("connect() without bind, from 127.0.0.1 (the kernel picks)", listener)
    attempt("connect() without bind to another port (127.0.0.1:7001)", other)
    attempt("bind(127.32.0.1, 0) + connect()", listener, src="127.32.0.1")
    attempt("bind(127.9.9.9, 0) + connect() (another source address)", listener, src="127.9.9.9")
    attempt("IP_BIND_ADDRESS_NO_PORT + bind(127.32.0.1, 0) + connect()", listener, src="127.32.0.1",
            no_port=True)


if __name__ == "__main__":
    main()
