#!/usr/bin/env python3
"""The table and the growth models of bench/scale.sh.

    fit.py RESULTS PES_PER_HOST

RESULTS has lines "TAG LIB METRIC VALUE" (TAG: 1xN for N PEs on one host, HxP for H hosts x P
PEs; LIB: ours or osh). Prints one Markdown table, a row per point, each cell "ours / OSHMEM
(ours/OSHMEM)", then, per series (one host; hosts), library and metric (init time, store
bytes, launcher descriptors, descriptors per PE), least-squares fits of y = a + b*f(N) for
f = N, N log2 N, N^2 and of y = a + b*N + c*N^2 (from 4 points; relative errors: each point
weighted 1/y^2, so that small and large sizes count alike; the quadratic only with b >= 0 and
c > 0, and chosen only when it halves the best other error) and of
the power law y = c*N^k (log-log), the best form by relative RMS error, and each extrapolated
to 8192 PEs (one host: 1 x 8192; hosts: 8192/PES_PER_HOST hosts).
"""
import math
import sys

TARGET = 8192
# (metric, column title, scale from the stored unit, format)
COLUMNS = [
    ("init_ms", "init ms (median PE)", 1, "{:.0f}"),
    ("init_max_ms", "init ms (slowest PE)", 1, "{:.0f}"),
    ("job_ms", "job s", 1e-3, "{:.2f}"),
    ("pss_kb", "PSS/PE MB", 1 / 1024, "{:.1f}"),
    ("fds", "fds/PE", 1, "{:.0f}"),
    ("threads", "threads/PE", 1, "{:.0f}"),
    ("launcher_fds", "launcher fds", 1, "{:.0f}"),
    ("launcher_rss_kb", "launcher RSS MB", 1 / 1024, "{:.1f}"),
    ("store", "store KB", 1 / 1024, "{:.1f}"),
    ("lio_bytes", "launcher rchar+wchar KB", 1 / 1024, "{:.0f}"),
    ("barrier_us", "barrier us", 1, "{:.1f}"),
    ("alltoall_us", "alltoall 8 B us", 1, "{:.1f}"),
]
FIT_METRICS = [("init_ms", "init ms"), ("store", "store bytes"), ("launcher_fds", "launcher fds"),
               ("fds", "fds per PE")]
FORMS = [
    ("N", lambda n: n),
    ("N log2 N", lambda n: n * math.log2(n)),
    ("N^2", lambda n: n * n),
]


def load(path):
    res = {}
    order = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 4:
                continue
            tag, lib, metric, value = parts
            if tag not in res:
                res[tag] = {}
                order.append(tag)
            res[tag].setdefault(lib, {})[metric] = value
    for tag in res:
        for lib in res[tag].values():
            # One "store" figure: the library's own count, else the loopback measure.
            for key in ("store_bytes", "store_bytes_lo"):
                if key in lib:
                    lib["store"] = lib[key]
                    lib["store_how"] = key
                    break
    return res, order


def size_of(tag):
    h, p = tag.split("x")
    return int(h) * int(p), int(h)


def num(d, metric):
    try:
        return float(d[metric]) if d.get("status") == "ok" else None
    except (KeyError, ValueError):
        return None


def cell(ours, osh, metric, scale, fmt):
    def one(d):
        if d is None:
            return "-"
        if d.get("status") != "ok":  # said once, in the first column
            return d.get("status", "-").replace("-", " ") if metric == COLUMNS[0][0] else "-"
        v = num(d, metric)
        return "n/a" if v is None else fmt.format(v * scale)

    o, t = one(ours), one(osh)
    vo, vt = (num(ours, metric) if ours else None), (num(osh, metric) if osh else None)
    ratio = f" ({vo / vt:.3g})" if vo is not None and vt else ""
    return f"{o} / {t}{ratio}"


def table(res, order):
    print("| point | PEs | " + " | ".join(c[1] for c in COLUMNS) + " |")
    print("|---|---" + "|---" * len(COLUMNS) + "|")
    for tag in order:
        n, h = size_of(tag)
        libs = res[tag]
        point = f"1 host x {n}" if h == 1 and tag.startswith("1x") else f"{h} hosts x {n // h}"
        cells = [cell(libs.get("ours"), libs.get("osh"), m, s, f) for m, _, s, f in COLUMNS]
        print(f"| {point} | {n} | " + " | ".join(cells) + " |")
    hows = {res[t][lib].get("store_how") for t in res for lib in res[t]} - {None}
    if "store_bytes_lo" in hows:
        print("\nstore: where the store did not count its bytes, the TCP payload on h1's loopback "
              "(one host only; bytes - 66 per frame, TLS records included).")


def wls(xs, ys):
    """a, b of y = a + b*x minimising sum(((y - a - b*x) / y)^2)."""
    w = [1 / (y * y) for y in ys]
    sw = sum(w)
    sx = sum(wi * x for wi, x in zip(w, xs))
    sy = sum(wi * y for wi, y in zip(w, ys))
    sxx = sum(wi * x * x for wi, x in zip(w, xs))
    sxy = sum(wi * x * y for wi, x, y in zip(w, xs, ys))
    det = sw * sxx - sx * sx
    if det == 0:
        return None
    b = (sw * sxy - sx * sy) / det
    a = (sy - b * sx) / sw
    return a, b


def wls2(ns, ys):
    """a, b, c of y = a + b*N + c*N^2, relative least squares (normal equations, 3 x 3)."""
    rows = [[1.0, n, n * n] for n in ns]
    w = [1 / (y * y) for y in ys]
    m = [[sum(wi * r[i] * r[j] for wi, r in zip(w, rows)) for j in range(3)] +
         [sum(wi * r[i] * y for wi, r, y in zip(w, rows, ys))] for i in range(3)]
    for col in range(3):  # Gauss-Jordan with partial pivoting
        piv = max(range(col, 3), key=lambda r: abs(m[r][col]))
        if m[piv][col] == 0:
            return None
        m[col], m[piv] = m[piv], m[col]
        for r in range(3):
            if r != col:
                k = m[r][col] / m[col][col]
                m[r] = [x - k * y for x, y in zip(m[r], m[col])]
    return tuple(m[i][3] / m[i][i] for i in range(3))


def rel_rms(pred, ys):
    return math.sqrt(sum(((p - y) / y) ** 2 for p, y in zip(pred, ys)) / len(ys))


def fit_series(ns, ys):
    """[(name, predicted at TARGET, rel RMS, description)], best first, plus the power law."""
    out = []
    for name, f in FORMS:
        ab = wls([f(n) for n in ns], ys)
        if ab is None:
            continue
        a, b = ab
        err = rel_rms([a + b * f(n) for n in ns], ys)
        out.append((name, a + b * f(TARGET), err, f"a={a:.4g} b={b:.4g}"))
    if len(ns) >= 4:
        abc = wls2(ns, ys)
        if abc is not None and abc[1] >= 0 and abc[2] > 0:  # a growing quadratic only
            a, b, c = abc
            err = rel_rms([a + b * n + c * n * n for n in ns], ys)
            out.append(("N + N^2", a + b * TARGET + c * TARGET**2, err, f"a={a:.4g} b={b:.4g} c={c:.4g}"))
    lx = [math.log(n) for n in ns]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    sxx = sum((x - mx) ** 2 for x in lx)
    k = sum((x - mx) * (y - my) for x, y in zip(lx, ly)) / sxx if sxx else 0.0
    c = math.exp(my - k * mx)
    power = (f"N^{k:.2f}", c * TARGET**k, rel_rms([c * n**k for n in ns], ys), f"c={c:.4g}")
    out.sort(key=lambda r: r[2])
    # The 3-parameter form wins only when it halves the best 2-parameter form's error.
    if out and out[0][0] == "N + N^2" and len(out) > 1 and out[0][2] >= 0.5 * out[1][2]:
        out[0], out[1] = out[1], out[0]
    return out, power


def human(v, what):
    if what == "store bytes":
        for unit, div in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
            if abs(v) >= div:
                return f"{v / div:.3g} {unit}"
        return f"{v:.0f} B"
    if what == "init ms":
        return f"{v / 1000:.3g} s" if abs(v) >= 1000 else f"{v:.3g} ms"
    return f"{v:.4g}"


def fits(res, order, pph):
    print(f"\nGrowth models (least squares, relative errors), extrapolated to {TARGET} PEs")
    print("| series | library | metric | points | best form (rel. RMS) | at 8192 PEs | log-log slope k (rel. RMS) | at 8192 PEs | other forms at 8192 |")
    print("|---|---|---|---|---|---|---|---|---|")
    series = [("one host (x = N)", lambda t: t.startswith("1x")),
              (f"hosts x {pph} (x = N = {pph}H)", lambda t: not t.startswith("1x"))]
    for sname, member in series:
        tags = [t for t in order if member(t)]
        for lib, lname in (("ours", "ours"), ("osh", "OSHMEM")):
            for metric, what in FIT_METRICS:
                pts = []
                for t in tags:
                    d = res[t].get(lib)
                    v = num(d, metric) if d else None
                    if v is not None and v > 0:
                        pts.append((size_of(t)[0], v))
                if len(pts) < 3:
                    continue
                ns, ys = [p[0] for p in pts], [p[1] for p in pts]
                if max(ys) == min(ys):
                    print(f"| {sname} | {lname} | {what} | {min(ns)}..{max(ns)} ({len(ns)}) | "
                          f"constant | {human(ys[0], what)} | 0.00 | {human(ys[0], what)} | |")
                    continue
                forms, power = fit_series(ns, ys)
                best = forms[0]
                others = "; ".join(f"{f[0]}: {human(f[1], what)}" for f in forms[1:])
                print(f"| {sname} | {lname} | {what} | {min(ns)}..{max(ns)} ({len(ns)}) | "
                      f"{best[0]} ({best[2]:.0%}; {best[3]}) | {human(best[1], what)} | "
                      f"{power[0][2:]} ({power[2]:.0%}) | {human(power[1], what)} | {others} |")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: fit.py RESULTS PES_PER_HOST")
    res, order = load(sys.argv[1])
    if not order:
        sys.exit("fit.py: no results in " + sys.argv[1])
    table(res, order)
    fits(res, order, int(sys.argv[2]))


if __name__ == "__main__":
    main()
