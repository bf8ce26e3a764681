#!/usr/bin/env python3
"""Checks the PTX of device_api_ptx.cu: each kernel (with the functions it calls) must contain
the system-scope instructions the device API's memory model promises (docs/cuda.md), and every
atomic, acquire/release access and fence in the atomics, signal, wait and barrier kernels must be
at system scope (peers are other processes). Usage: check_ptx.py FILE.ptx"""
import re
import sys

BARRIER_ADD = r"atom\.add\.release\.sys\.u64"
BARRIER_TAKE = r"atom\.add(\.relaxed)?\.sys\.u64"

# kernel -> regular expressions that must all match in its code
REQUIRED = {
    "k_fence": [r"fence\.sc\.sys"],
    "k_quiet": [r"fence\.sc\.sys"],
    "k_signal_set": [r"st\.release\.sys"],
    "k_signal_add": [r"atom\.add\.release\.sys"],
    "k_put_signal": [r"st\.release\.sys"],
    "k_put_signal_block": [r"bar\.sync|barrier\.sync", r"fence\.sc\.sys", r"atom\.add\.release\.sys"],
    # lanes from %laneid (threadIdx.x & 31 is not the lane in 2-D blocks)
    "k_put_signal_warp": [r"fence\.sc\.sys", r"st\.release\.sys", r"%laneid"],
    "k_wait_until": [r"ld\.acquire\.sys"],
    "k_signal_wait_until": [r"ld\.acquire\.sys"],
    "k_signal_fetch": [r"ld\.acquire\.sys"],
    "k_test": [r"ld\.acquire\.sys"],
    "k_atomic_fetch_add": [r"atom\.add(\.relaxed)?\.sys\.u64"],
    "k_atomic_add": [r"(atom|red)\.add(\.relaxed)?\.sys\.u64"],
    "k_atomic_compare_swap": [r"atom\.cas(\.relaxed)?\.sys\.b64"],
    "k_atomic_swap": [r"atom\.exch(\.relaxed)?\.sys\.b32"],
    "k_atomic_fetch_and": [r"atom\.and(\.relaxed)?\.sys\.b32"],
    "k_atomic_xor": [r"(atom|red)\.xor(\.relaxed)?\.sys\.b64"],
    "k_atomic_add_i16": [r"atom\.cas(\.relaxed)?\.sys\.b32"],   # 16-bit add: CAS on the 32-bit word
    "k_atomic_add_u8": [r"atom\.cas(\.relaxed)?\.sys\.b32"],    # 8-bit add: likewise
    "k_atomic_add_double": [r"(atom|red)\.add(\.relaxed)?\.sys\.f64"],
    "k_atomic_fetch_float": [r"ld\.relaxed\.sys\.b32"],
    # dissemination barriers: a release add to the peer's counting flag, acquire polling of our
    # own, and the relaxed add that takes the arrival back
    "k_barrier_all": [r"fence\.sc\.sys", BARRIER_ADD, r"ld\.acquire\.sys\.b64", BARRIER_TAKE],
    "k_barrier_all_block": [r"bar\.sync|barrier\.sync", BARRIER_ADD, r"ld\.acquire\.sys\.b64", BARRIER_TAKE],
    "k_barrier_all_grid": [BARRIER_ADD, r"ld\.acquire\.sys\.b64", BARRIER_TAKE],
    "k_sync_all": [BARRIER_ADD, r"ld\.acquire\.sys\.b64", BARRIER_TAKE],
}
# Kernels whose cooperative-groups grid barrier (within this PE's own launch) is at GPU scope.
GRID_SCOPE_OK = {"k_barrier_all_grid"}
# Instructions that would be too weak between processes if they appeared in these kernels.
NARROW = re.compile(r"^\s*(atom|red|fence|membar|ld\.acquire|st\.release)\S*\.(cta|gpu|cluster)\b|"
                    r"^\s*(atom|red)\.(?!.*\.(sys|shared)\b)[a-z]", re.M)


def blocks(ptx):
    """name -> body text for every .entry and .func."""
    out = {}
    for m in re.finditer(r"^(?:\.(?:visible|weak|extern)\s+)*\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)\s*\(", ptx, re.M):
        start = ptx.find("{", m.end())
        if start < 0 or ptx.find(";", m.end(), start) >= 0:
            continue  # a declaration, not a definition
        depth, i = 0, start
        while i < len(ptx):
            depth += {"{": 1, "}": -1}.get(ptx[i], 0)
            if depth == 0:
                break
            i += 1
        out[m.group(2)] = ptx[start:i + 1]
    return out


def code_of(name, bodies, seen=None):
    seen = seen or set()
    seen.add(name)
    text = bodies[name]
    for callee in re.findall(r"\bcall(?:\.uni)?\s*(?:\([^)]*\),\s*)?([\w$]+)\s*,", text):
        if callee in bodies and callee not in seen:
            text += code_of(callee, bodies, seen)
    return text


def main():
    ptx = open(sys.argv[1]).read()
    bodies = blocks(ptx)
    failures = []
    for kernel, patterns in REQUIRED.items():
        if kernel not in bodies:
            failures.append(f"{kernel}: kernel not found in the PTX")
            continue
        code = code_of(kernel, bodies)
        for pat in patterns:
            if not re.search(pat, code):
                failures.append(f"{kernel}: no instruction matching /{pat}/")
        for bad in NARROW.finditer(code):
            if kernel in GRID_SCOPE_OK and ".gpu" in bad.group(0):
                continue
            failures.append(f"{kernel}: narrower than system scope: {bad.group(0).strip()}")
    for f in failures:
        print("FAIL", f)
    print(f"check_ptx: {len(REQUIRED)} kernels, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
