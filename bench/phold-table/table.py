# Medians of a side-by-side.sh output file as a markdown table (ratios to the best bare loop).
import sys, re, statistics
rows = {}
order = []
head = ''
for line in open(sys.argv[1]):
    if line.startswith('#'):
        head += line; continue
    m = dict(re.findall(r'(\S+?)=(\S*)', line))
    if not m.get("events"):
        continue  # a run that was stopped (no result line)
    k = line.split()[0]
    if k not in rows: rows[k] = []; order.append(k)
    rows[k].append((float(m['evpcpu']), int(m['events']), float(m['T']), int(m['rss_kb'])))
N = int(re.search(r'N=(\d+)', head).group(1)); E = 16
med = {k: statistics.median([r[0] for r in v]) for k, v in rows.items()}
best_k = max(['raw-pq', 'raw-calq', 'raw-dary4f'], key=lambda k: med[k])
best = med[best_k]
print(head.strip())
print(f'best bare loop: {best_k} {best/1e6:.2f}')
print('| program | T | M ev / CPU s (median) | × best bare loop | × std::priority_queue | events (vs N·E·T/1.1) | runs | peak RSS |')
print('|---|---|---|---|---|---|---|---|')
for k in order:
    v = rows[k]; T = v[0][2]; exp = N * E * T / 1.1; ev = v[0][1]
    runs = ' / '.join(f'{r[0]/1e6:.2f}' for r in v)
    print(f'| {k} | {T:g} | {med[k]/1e6:.2f} | {med[k]/best:.2f} | {med[k]/med["raw-pq"]:.2f} | {ev:,} ({(ev-exp)/exp*100:+.2f} %) | {runs} | {max(r[3] for r in v)/1024:.1f} MiB |')
