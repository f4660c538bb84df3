"""Reading `skysim compare`'s compare.csv for the docs' table scripts."""
import csv


def fmt(x, digits):
    return f"{x:,.{digits}f}"


def read_compare(paths):
    """Rows of compare.csv files by variant label, the labels in file order, n per label."""
    rows, order, n = {}, [], {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                label = r["label"]
                if label not in rows:
                    rows[label] = {}
                    order.append(label)
                rows[label][r["metric"]] = r
                n[label] = r["n"]
    return rows, order, n
