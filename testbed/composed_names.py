"""A composed skysim run's columns under the testbed collector's names (docs/testbed.md).

The testbed's collector (testbed/collector) writes the names the dataplane kind wrote; skysim's
as-was case (scenarios/testbed/as-was.yaml) is now a composition of a memcached and a
go-service, whose series are named by what they are (client.dial_errors of the client `mc`,
net.time_wait, ...). summarize.py and twin_plot.py read both sides through testbed_row."""

H = "{dc=east;host=east/dataplane/0}"  # the testbed's labels, ',' read as ';'
C = "{host=east/dataplane/0}"          # the composition's go-service host

RENAMES = {
    # every failed dial of the memcached client: in these cases Go's "bind: address already
    # in use" (the fd-limit and SYN-loss faults, which fail dials otherwise, are not used)
    "client.dial_errors{client=mc;host=east/dataplane/0}": "memcached.bind_errors" + H,
    "net.time_wait" + C: "tcp.time_wait" + H,
    "go.up" + C: "dataplane.up" + H,
}


def testbed_row(row):
    """`row` (a dict of one timeseries.csv row, labels joined by ';') with the testbed's names
    added where a composed run has them under its own; a testbed row comes back unchanged."""
    if not any(k.endswith(C) for k in row):
        return row
    out = dict(row)
    for k, v in row.items():
        if k in RENAMES:
            out[RENAMES[k]] = v
        elif k.endswith(C):
            out.setdefault(k[: -len(C)] + H, v)
    # the memcached client's errors of every kind, as the testbed counts its cache errors
    errors = [float(v) for k, v in row.items() if k.startswith("call.errors{client=mc;") and v != ""]
    if errors:
        out["memcached.cache_errors" + H] = str(sum(errors))
    return out
