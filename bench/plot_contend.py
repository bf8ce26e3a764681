#!/usr/bin/env python3
"""plot_contend.py - plot the CSV written by bench/contend.sh.

    /usr/bin/python3 bench/plot_contend.py CSV [OUT_PNG]

CSV columns: scenario,lib,metric,npes,value_us,best_us,runs,load_min,load_max (lib: ours,
osh, hw). Writes one PNG (default docs/img/contend.png): one panel per metric, ours and
OSHMEM side by side for each scenario, latency on a log scale, the load average range under
each scenario's name; the ping-pong panel also shows the cache-line hand-off and, where the
CSV has it, our device-API ping-pong (metric dev_pingpong).

Needs matplotlib (Debian: apt-get install python3-matplotlib); without it, prints a message
and exits 0 without plotting.
"""
import csv
import os
import sys

METRICS = [("pingpong", "ping-pong, half round trip"), ("barrier", "barrier_all"),
           ("broadcast8", "broadcast, 8 B"), ("reduce8", "sum reduction, 8 B"),
           ("fcollect8", "fcollect, 8 B per PE")]
LIBS = [("ours", "ours", "tab:blue"), ("osh", "Open MPI OSHMEM 4.1", "tab:red")]
DEVICE_METRIC = "dev_pingpong"  # ours only, drawn in the ping-pong panel


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    out = argv[2] if len(argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                     "docs", "img", "contend.png")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_contend.py: matplotlib is not available to %s; skipping the plot "
              "(Debian: apt-get install python3-matplotlib, then run with /usr/bin/python3)" % sys.executable)
        return 0
    rows = list(csv.DictReader(open(argv[1], newline="")))
    if not rows:
        print("plot_contend.py: %s has no rows; nothing to plot" % argv[1])
        return 1
    scen = []
    for r in rows:
        if r["lib"] != "hw" and r["scenario"] not in scen:
            scen.append(r["scenario"])
    val = {(r["scenario"], r["lib"], r["metric"]): float(r["value_us"]) for r in rows}
    load = {}
    npes = {}
    for r in rows:
        s = r["scenario"]
        lo, hi = float(r["load_min"]), float(r["load_max"])
        a, b = load.get(s, (lo, hi))
        load[s] = (min(a, lo), max(b, hi))
        if r["lib"] != "hw":
            npes[s] = r["npes"]
    fig, axes = plt.subplots(len(METRICS), 1, figsize=(10, 2.3 * len(METRICS)), sharex=True)
    for ax, (m, title) in zip(axes, METRICS):
        # (lib, metric, legend, color) per bar of a scenario; the ping-pong panel also has the
        # device-API ping-pong (bench/contend_device.cpp, ours only) when the CSV has it
        series = [(lib, m, legend, color) for lib, legend, color in LIBS]
        if m == "pingpong" and any(mm == DEVICE_METRIC for (_, _, mm) in val):
            series.insert(1, ("ours", DEVICE_METRIC, "ours, device API (in a kernel)", "tab:cyan"))
        width = 0.76 / len(series)
        for i, (lib, metric, legend, color) in enumerate(series):
            xs, ys = [], []
            for j, s in enumerate(scen):
                v = val.get((s, lib, metric))
                if v:
                    xs.append(j + (i - (len(series) - 1) / 2) * width)
                    ys.append(v)
            ax.bar(xs, ys, width, label=legend, color=color)
            for x, y in zip(xs, ys):
                ax.text(x, y * 1.08, ("%.2f" % y) if y < 10 else ("%.0f" % y), ha="center", va="bottom", fontsize=7)
        hw = val.get(("idle", "hw", "handoff"))
        if m == "pingpong" and hw:
            ax.axhline(hw, color="gray", linestyle=":", linewidth=1)
            ax.text(len(scen) - 0.5, hw * 1.1, "cache-line hand-off %.3f us" % hw, ha="right", fontsize=7, color="gray")
        ax.set_yscale("log")
        ax.set_ylabel("us")
        ax.set_title(title, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
        mine = (m,) + ((DEVICE_METRIC,) if m == "pingpong" else ())
        lo = min(v for (s, l, mm), v in val.items() if mm in mine or (m == "pingpong" and mm == "handoff"))
        hi = max(v for (s, l, mm), v in val.items() if mm in mine)
        ax.set_ylim(lo / 2, hi * 4)
    axes[0].legend(fontsize=8, loc="upper left")
    axes[-1].set_xticks(range(len(scen)))
    axes[-1].set_xticklabels(["%s\n%s PEs, load %.1f-%.1f" % (s, npes.get(s, "?"), load[s][0], load[s][1]) for s in scen],
                             fontsize=8)
    fig.suptitle("Latency under CPU contention (median per operation; lower is better)", fontsize=11)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=90)
    print("plot_contend.py: wrote %s (%d KB)" % (out, (os.path.getsize(out) + 1023) // 1024))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
