#!/usr/bin/env python3
"""Screenshots of a `skysim report` page rendered by headless Chromium, and their checks.
Used by scripts/report-screenshots.sh (probe, height, crop) and the ctest
analysis/report_render_april (tests/analysis/report_render.sh: check).

  probe REPORT.html PROBE.html   copy the page with a script that writes, on each panel, where
                                 its chart (data-rect) and the whole panel (data-figure) landed
  height DOM.html                print how tall a screenshot must be to hold every panel
  crop DOM.html SHOT.png DIR     one PNG per panel: DIR/KIND-FIRST_SERIES.png
  check DOM.html SHOT.png EXPLAIN.txt KIND CHANGE_AT
      (b) every panel `skysim explain KIND` declares is in the DOM, with its series as paths
          holding points, and the timeline change at CHANGE_AT seconds marked on it;
      (a) each panel's chart in the screenshot has pixels of its series' colours (a blank or
          unpainted chart has none: the frame, grid and text are grey or black, markers red).
Standard library only: the PNG is decoded here (zlib + the five row filters).
"""
import html.parser
import struct
import sys
import zlib

PROBE = """<script>
for (const f of document.querySelectorAll('figure.panel')) {
  const r = f.querySelector('svg.chart').getBoundingClientRect();
  f.setAttribute('data-rect', [r.left + scrollX, r.top + scrollY, r.width, r.height]
                                 .map(Math.round).join(','));
  const g = f.getBoundingClientRect();
  f.setAttribute('data-figure', [g.left + scrollX, g.top + scrollY, g.width, g.height]
                                   .map(Math.round).join(','));
}
</script>
"""


def fail(msg):
    print("report_render: FAIL: " + msg)
    sys.exit(1)


def decode_png(path):
    """(width, height, bytes per pixel, rows) of an 8-bit RGB/RGBA non-interlaced PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + " is not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    w, h, depth, ctype, _, _, interlace = header
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail("%s: unsupported PNG (depth %d, colour type %d, interlace %d)" % (path, depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    stride = w * bpp
    raw = zlib.decompress(b"".join(idat))
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif f == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + (left + prev[x]) // 2) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


class Dom(html.parser.HTMLParser):
    """The panels of the dumped DOM: attributes, series paths, change markers."""

    def __init__(self):
        super().__init__()
        self.panels, self.body = [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        elif tag == "figure" and "panel" in a.get("class", "").split():
            self.panels.append({"attrs": a, "paths": [], "changes": [], "phases": 0})
        elif not self.panels:
            return
        elif tag == "path" and a.get("class") == "series":
            self.panels[-1]["paths"].append(a)
        elif tag == "g" and a.get("class") == "change":
            self.panels[-1]["changes"].append(a.get("data-at"))
        elif tag == "g" and a.get("class") == "phase":
            self.panels[-1]["phases"] += 1


def encode_png(path, rows, bpp):
    """Rows of pixels as a PNG (filter 0 on every row; zlib does the rest)."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)
    header = struct.pack(">IIBBBBB", len(rows[0]) // bpp, len(rows), 8, 2 if bpp == 3 else 6, 0, 0, 0)
    raw = b"".join(b"\x00" + bytes(r) for r in rows)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def crop(dom_path, png_path, out_dir):
    import os
    w, h, bpp, rows = decode_png(png_path)
    os.makedirs(out_dir, exist_ok=True)
    for p in parse_dom(dom_path).panels:
        box = p["attrs"].get("data-figure")
        if not box or not p["paths"]:
            continue
        x0, y0, bw, bh = [int(v) for v in box.split(",")]
        x1, y1 = min(w, x0 + bw), min(h, y0 + bh)
        name = "%s-%s.png" % (p["attrs"].get("data-kind") or "series", metric_of(p["paths"][0]["data-series"]).replace(":", "-"))
        encode_png(os.path.join(out_dir, name), [r[x0 * bpp:x1 * bpp] for r in rows[y0:y1]], bpp)
        print(os.path.join(out_dir, name))


def parse_dom(path):
    d = Dom()
    d.feed(open(path, encoding="utf-8").read())
    return d


def metric_of(column):
    """go.threads{dc=east,host=...} -> go.threads; q.wait_ns{host=h}:p99 -> q.wait_ns:p99"""
    if "{" in column and "}" in column:
        return column[:column.index("{")] + column[column.index("}") + 1:]
    return column


def declared_panels(explain_path):
    lines = open(explain_path, encoding="utf-8").read().splitlines()
    start = [i for i, l in enumerate(lines) if l.startswith("report panels")]
    if not start:
        fail(explain_path + ": the kind declares no report panels")
    panels = []
    for l in lines[start[0] + 1:]:
        if not l.startswith("  "):
            break
        title, series, unit, how = [p.strip() for p in l.strip().split(" | ")]
        panels.append((title, [s.strip() for s in series.split(",")], how))
    return panels


def check(dom_path, png_path, explain_path, kind, change_at):
    dom = parse_dom(dom_path)
    by_title = {p["attrs"].get("data-panel"): p for p in dom.panels if p["attrs"].get("data-kind") == kind}
    w, h, bpp, rows = decode_png(png_path)
    declared = declared_panels(explain_path)
    for title, series, how in declared:
        p = by_title.get(title)
        if p is None:
            fail("declared panel %r of kind %s is not in the DOM" % (title, kind))
        # (b) the DOM: each declared series is drawn, every line with points.
        drawn = {metric_of(x.get("data-series", "")) for x in p["paths"]}
        wanted = series[:1] if how.startswith("share") else series
        for s in wanted:
            if s not in drawn:
                fail("panel %r: no path for series %s (drawn: %s)" % (title, s, sorted(drawn)))
        for x in p["paths"]:
            if int(x.get("data-points", "0")) <= 0 or len(x.get("d", "")) < 2:
                fail("panel %r: series %s has no points" % (title, x.get("data-series")))
        if change_at not in p["changes"]:
            fail("panel %r: no marker of the timeline change at %s s (markers at %s)" % (title, change_at, p["changes"]))
        # (a) the pixels: colours of its series inside the chart's box.
        rect = p["attrs"].get("data-rect")
        if not rect:
            fail("panel %r: the probe recorded no position" % title)
        x0, y0, rw, rh = [int(v) for v in rect.split(",")]
        if y0 + rh > h or x0 + rw > w:
            fail("panel %r at %s lies outside the %dx%d screenshot" % (title, rect, w, h))
        colours = [tuple(int(x["stroke"][i:i + 2], 16) for i in (1, 3, 5)) for x in p["paths"]]
        hits = 0
        for y in range(y0, y0 + rh):
            row = rows[y]
            for x in range(x0, x0 + rw):
                px = row[x * bpp:x * bpp + 3]
                if max(px) - min(px) < 40:
                    continue  # white, grey or black: background, frame, grid, text
                for c in colours:
                    if abs(px[0] - c[0]) + abs(px[1] - c[1]) + abs(px[2] - c[2]) < 60:
                        hits += 1
                        break
        # assumption: 100 pixels, a line ~60 px long; a drawn series over a whole run has thousands.
        if hits < 100:
            fail("panel %r: only %d pixels of its series' colours in the chart at %s (blank?)" % (title, hits, rect))
        print("ok  %-80s %d lines, %6d series pixels, %d phase ticks" % (title[:80], len(p["paths"]), hits, p["phases"]))
    print("report_render: %d declared panels of %s rendered with their series" % (len(declared), kind))


def main(argv):
    if argv[1:2] == ["probe"]:
        text = open(argv[2], encoding="utf-8").read()
        if "</body>" not in text:
            fail(argv[2] + " has no </body>")
        open(argv[3], "w", encoding="utf-8").write(text.replace("</body>", PROBE + "</body>"))
    elif argv[1:2] == ["height"]:
        bottoms = [sum(int(v) for v in p["attrs"]["data-rect"].split(",")[1::2])
                   for p in parse_dom(argv[2]).panels if p["attrs"].get("data-rect")]
        if not bottoms:
            fail(argv[2] + ": the probe recorded no panel")
        print(max(bottoms) + 20)
    elif argv[1:2] == ["crop"] and len(argv) == 5:
        crop(*argv[2:5])
    elif argv[1:2] == ["check"] and len(argv) == 7:
        check(*argv[2:7])
    else:
        fail("usage: see the docstring")


if __name__ == "__main__":
    main(sys.argv)
