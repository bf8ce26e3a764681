#!/usr/bin/env python3
"""plot.py - plot the collective benchmark CSV written by bench/coll_compare.sh.

    /usr/bin/python3 bench/plot.py CSV [OUT_DIR]

CSV columns: lib,coll,npes,bytes,lat_us,best_us,bw_GBs,runs (lib: ours, osh, team).
For every PE count in the CSV it writes two PNGs into OUT_DIR (default: docs/img next to
this script's repository):

    coll_latency_<N>pe.png     (or coll_latency_<TAG>.png: plot.py CSV OUT_DIR TAG) latency (us) vs result size, log-log, one panel per collective
    coll_bandwidth_<N>pe.png   bandwidth (GB/s, result bytes per PE / latency) vs size

Needs matplotlib (Debian: apt-get install python3-matplotlib); without it, prints a message
and exits 0 without plotting.
"""
import csv
import os
import sys

LIBS = [  # key, legend, style
    ("ours", "ours (active-set)", dict(color="tab:blue", marker="o", linestyle="-")),
    ("team", "ours (team forms)", dict(color="tab:cyan", marker="x", linestyle="--")),
    ("osh", "Open MPI OSHMEM 4.1", dict(color="tab:red", marker="s", linestyle="-")),
]
COLLS = ["broadcast", "fcollect", "alltoall", "sum_reduce"]


def human(b):
    b = int(b)
    if b >= 1 << 20:
        return "%d MiB" % (b >> 20)
    if b >= 1 << 10:
        return "%d KiB" % (b >> 10)
    return "%d B" % b


def load(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows.append(
                dict(lib=r["lib"], coll=r["coll"], npes=int(r["npes"]), bytes=int(r["bytes"]),
                     lat=float(r["lat_us"]), bw=float(r["bw_GBs"])))
    return rows


def barrier_note(rows, npes):
    parts = []
    for key, legend, _ in LIBS:
        for r in rows:
            if r["lib"] == key and r["coll"] == "barrier" and r["npes"] == npes:
                parts.append("%s %.2f us" % (legend, r["lat"]))
    return ("barrier: " + ", ".join(parts)) if parts else ""


def plot(rows, npes, metric, out_path, plt, ticker):
    fig, axes = plt.subplots(2, 2, figsize=(10, 7.2), sharex=True)
    for ax, coll in zip(axes.flat, COLLS):
        for key, legend, style in LIBS:
            pts = sorted((r["bytes"], r[metric]) for r in rows
                         if r["lib"] == key and r["coll"] == coll and r["npes"] == npes and r[metric] > 0)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], label=legend, markersize=4, linewidth=1.4,
                        **style)
        xs = [r["bytes"] for r in rows if r["coll"] == coll and r["npes"] == npes and r[metric] > 0]
        if xs:
            ax.set_xlim(min(xs) / 1.6, max(xs) * 1.6)
        ax.set_title(coll)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.grid(True, which="major", alpha=0.4)
        ax.grid(True, which="minor", alpha=0.12)
        ax.xaxis.set_major_locator(ticker.LogLocator(base=4, numticks=20))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: human(x) if x >= 1 else ""))
        ax.tick_params(axis="x", labelrotation=45, labelsize=8)
        ax.set_ylabel("latency (us)" if metric == "lat" else "GB/s")
    for ax in axes[1]:
        ax.set_xlabel("result size per PE")
    axes.flat[0].legend(fontsize=8)
    what = "latency per call (median; lower is better)" if metric == "lat" else \
        "bandwidth = result bytes per PE / latency (higher is better)"
    title = "Collectives, %d PEs: %s" % (npes, what)
    note = barrier_note(rows, npes)
    fig.suptitle(title + ("\n" + note if note and metric == "lat" else ""), fontsize=11)
    fig.tight_layout()
    fig.savefig(out_path, dpi=90)
    plt.close(fig)
    print("plot.py: wrote %s (%d KB)" % (out_path, (os.path.getsize(out_path) + 1023) // 1024))


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    csv_path = argv[1]
    out_dir = argv[2] if len(argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                          "docs", "img")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import ticker
    except ImportError:
        print("plot.py: matplotlib is not available to %s; skipping the plots "
              "(Debian: apt-get install python3-matplotlib, then run with /usr/bin/python3)" % sys.executable)
        return 0
    rows = load(csv_path)
    if not rows:
        print("plot.py: %s has no rows; nothing to plot" % csv_path)
        return 1
    os.makedirs(out_dir, exist_ok=True)
    # argv[3]: a tag for the file names (coll_latency_<tag>.png), e.g. the host layout of a
    # cross-host run; default <N>pe.
    tag = argv[3] if len(argv) > 3 else None
    for npes in sorted({r["npes"] for r in rows}):
        name = tag if tag else "%dpe" % npes
        plot(rows, npes, "lat", os.path.join(out_dir, "coll_latency_%s.png" % name), plt, ticker)
        plot(rows, npes, "bw", os.path.join(out_dir, "coll_bandwidth_%s.png" % name), plt, ticker)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
