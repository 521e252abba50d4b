#!/usr/bin/env python3
"""Compare springsim's contact primitives with ipc-toolkit's Python bindings (ipctk).

Usage: ipctk_reference.py CASES.json

CASES.json (written by tests/ipctk_reference.rs) holds
  {"cases": [{"name", "kind": "point_edge"|"point_triangle"|"edge_edge", "dim",
              "x": stacked nodes, "p": stacked displacements,
              "distance_sq", "gradient": springsim's squared distance and its
              gradient w.r.t. the stacked nodes,
              "ccd": {"min_separation", "keep", "t_max", "t", "stop"}}],
   "barrier": [{"d", "dhat", "value"}]}
with nodes stacked as [p, e0, e1], [p, t0, t1, t2] or [ea0, ea1, eb0, eb1]
(the order of ipctk's arguments and of its gradients).

Checks, one output line per mismatch:
- squared distance: |ours - ipctk| <= RTOL * max(|ours|, |ipctk|) + ATOL_D * L * d + (ATOL_D * L)^2,
  with L the pair's extent and d the distance: RTOL = 1e-10 relative, plus a
  rounding allowance of order eps*L on the distance itself (tiny gaps);
- edge-edge pairs with sin^2(angle) < 1e-10 (nearly parallel): ipctk's
  edge_edge_distance picks one of the four point-edge distances by its own rule,
  not always the smallest, so it may exceed the true distance; the reference is then
  the smallest of ipctk's four point_edge_distance values (the true distance lies
  at most sin^2(angle)*L^2 below it, added to the tolerance), and its gradient the
  matching ipctk point_edge_distance_gradient (skipped where two tie: a kink);
- gradient of the squared distance: |ours - ipctk|_inf <= RTOL * |ipctk|_inf + ATOL_D * L;
- barrier value: |ours - ipctk.barrier(d, dhat)| <= 1e-12 * |ipctk|;
- CCD, against two ipctk oracles:
  * TightInclusionCCD (tolerance delta chosen per case, conservative_rescaling = 1,
    min_distance = 0): a time of impact toi that is itself conservative (at most the
    true first contact time, within delta of contact). Additive CCD keeps
    xi + keep*(d0 - xi) of distance at its bound, so wherever that distance exceeds
    ~2*delta the bound can never pass toi: ours <= toi * (1 + 1e-9) + 1e-12.
    No lower bound is claimed against toi: additive CCD legitimately stops early
    when the pair comes close and separates again before the impact;
  * AdditiveCCD (conservative_rescaling = 1 - keep, min_distance = xi, the same
    t_max): the same algorithm (Li et al. 2021). Ours must not be more conservative:
    ours >= theirs * (1 - 1e-9) - 1e-12, where theirs = t_max when ipctk reports no
    collision (ours may be larger: at the end of the interval we evaluate the gap at
    t_max itself, ipctk at the step's end beyond it). Exempt: our iteration cap;
  * a pair starting within xi gives 0, one outside it a positive time.

Prints statistics and a final line `ipctk_reference: N cases compared, M mismatches`;
exits 1 when M > 0, 2 on unusable input or a missing ipctk.
"""

import json
import math
import sys

try:
    import numpy as np
    import ipctk
except ImportError as err:  # pragma: no cover - environment problem
    print(f"ipctk_reference: cannot import numpy/ipctk: {err}")
    sys.exit(2)

RTOL = 1e-10
ATOL_D = 1e-13  # rounding allowance on a distance, relative to the pair's extent
EPS = 2.220446049250313e-16
PARALLEL_SIN_SQ = 1e-10


def nodes(case):
    dim = case["dim"]
    x = np.asarray(case["x"], dtype=float)
    return [x[i * dim:(i + 1) * dim] for i in range(len(x) // dim)]


def extent(case):
    ns = nodes(case)
    lo = np.min(ns, axis=0)
    hi = np.max(ns, axis=0)
    return float(np.linalg.norm(hi - lo))


def distance_sq(kind, ns):
    if kind == "point_edge":
        return ipctk.point_edge_distance(*ns)
    if kind == "point_triangle":
        return ipctk.point_triangle_distance(*ns)
    if kind == "edge_edge":
        return ipctk.edge_edge_distance(*ns)
    raise ValueError(f"unknown kind {kind!r}")


def gradient(kind, ns):
    if kind == "point_edge":
        g = ipctk.point_edge_distance_gradient(*ns)
    elif kind == "point_triangle":
        g = ipctk.point_triangle_distance_gradient(*ns)
    else:
        g = ipctk.edge_edge_distance_gradient(*ns)
    return np.asarray(g, dtype=float).reshape(-1)


def distance_type(kind, ns):
    if kind == "point_edge":
        return ipctk.point_edge_distance_type(*ns).name
    if kind == "point_triangle":
        return ipctk.point_triangle_distance_type(*ns).name
    return ipctk.edge_edge_distance_type(*ns).name


def edge_edge_sin_sq(ns):
    a = ns[1] - ns[0]
    b = ns[3] - ns[2]
    den = float(a @ a) * float(b @ b)
    if den == 0.0:
        return 0.0
    c = np.cross(a, b)
    return float(c @ c) / den


def parallel_point_edges(ns):
    """The four point-edge distances of an edge-edge pair, smallest first, each as
    (squared distance, ipctk gradient scattered onto the 12 stacked coordinates)."""
    out = []
    for p, e0, e1 in ((0, 2, 3), (1, 2, 3), (2, 0, 1), (3, 0, 1)):
        d2 = ipctk.point_edge_distance(ns[p], ns[e0], ns[e1])
        g = np.asarray(ipctk.point_edge_distance_gradient(ns[p], ns[e0], ns[e1])).reshape(-1)
        full = np.zeros(12)
        for k, node in enumerate((p, e0, e1)):
            full[3 * node:3 * node + 3] = g[3 * k:3 * k + 3]
        out.append((d2, full))
    out.sort(key=lambda item: item[0])
    return out


def run_ccd(ccd, kind, ns, ps, min_distance, t_max):
    """(hit, toi) of an ipctk narrow-phase CCD object for the move ns -> ns + ps."""
    ends = [n + p for n, p in zip(ns, ps)]
    if kind == "point_edge":
        return ccd.point_edge_ccd(*ns, *ends, min_distance=min_distance, tmax=t_max)
    if kind == "point_triangle":
        return ccd.point_triangle_ccd(*ns, *ends, min_distance=min_distance, tmax=t_max)
    return ccd.edge_edge_ccd(*ns, *ends, min_distance=min_distance, tmax=t_max)


class Stats:
    def __init__(self):
        self.max_rel = {}
        self.counts = {}
        self.ratios = []  # ours / TightInclusion toi, for impacts
        self.larger = []  # (name, ours, ipctk additive) where ours is larger

    def rel(self, key, value):
        if math.isfinite(value):
            self.max_rel[key] = max(self.max_rel.get(key, 0.0), value)

    def count(self, key, n=1):
        self.counts[key] = self.counts.get(key, 0) + n


def rel_key(kind, quantity, notes):
    """The statistics key of a relative error, e.g. `point_edge gradient relative
    error (inf norm)`."""
    return f"{kind} {quantity} relative error" + (f" ({', '.join(notes)})" if notes else "")


def compare_case(case, stats, mismatches):
    name = case["name"]
    kind = case["kind"]
    ns = nodes(case)
    dim = case["dim"]
    ps = [np.asarray(case["p"][i * dim:(i + 1) * dim], dtype=float) for i in range(len(ns))]
    L = max(extent(case), 1e-300)

    def fail(what):
        mismatches.append(f"MISMATCH {name} ({kind}, dim {dim}): {what}")

    def check(quantity, err, scale, tol, message, notes=()):
        """A mismatch `message()` when err > tol; the relative error err / scale
        into the statistics (its key qualified by `notes`), again with `d > 1e-3 L`
        among the notes when the pair is not tight."""
        if not err <= tol:
            fail(message())
        if scale > 0:
            stats.rel(rel_key(kind, quantity, notes), err / scale)
            if d > 1e-3 * L:
                stats.rel(rel_key(kind, quantity, notes + ("d > 1e-3 L",)), err / scale)

    # Squared distance.
    ours = case["distance_sq"]
    theirs = distance_sq(kind, ns)
    d = math.sqrt(max(ours, theirs, 0.0))
    tol = RTOL * max(abs(ours), abs(theirs)) + ATOL_D * L * d + (ATOL_D * L) ** 2
    parallel = None
    if kind == "edge_edge" and edge_edge_sin_sq(ns) < PARALLEL_SIN_SQ:
        # Nearly parallel edges: ipctk takes one point-edge distance by its own
        # rule, not always the smallest, so it can exceed the true distance by
        # ~sin(angle)*L*d. The true distance lies within sin^2(angle)*L^2 below the
        # smallest of the four point-edge distances: compare with that (from ipctk).
        parallel = parallel_point_edges(ns)
        stats.count("edge_edge near parallel: compared with ipctk's smallest point-edge distance")
        if abs(theirs - parallel[0][0]) > tol:
            stats.count("edge_edge near parallel: ipctk edge_edge_distance above that minimum")
        theirs = min(theirs, parallel[0][0])
        tol += edge_edge_sin_sq(ns) * L * L
    err = abs(ours - theirs)
    check("distance_sq", err, theirs, tol,
          lambda: f"distance_sq ours {ours!r} ipctk {theirs!r} (err {err:.3e} > tol {tol:.3e},"
          f" ipctk type {distance_type(kind, ns)})")
    stats.count(f"{kind} distances")

    # Gradient of the squared distance.
    g_ours = np.asarray(case["gradient"], dtype=float)
    g_theirs = gradient(kind, ns)
    if parallel is not None:
        (d_min, g_min), (d_next, _) = parallel[0], parallel[1]
        g_theirs = g_min
    if g_ours.shape != g_theirs.shape:
        fail(f"gradient length ours {g_ours.size} ipctk {g_theirs.size}")
    elif parallel is not None and d_next - d_min <= 1e-9 * d_next + tol:
        # Two point-edge distances tie: the squared distance has a kink here.
        stats.count("edge_edge gradients skipped (near parallel, tied point-edge distances)")
    else:
        g_err = float(np.max(np.abs(g_ours - g_theirs)))
        g_scale = float(np.max(np.abs(g_theirs)))
        g_tol = RTOL * g_scale + ATOL_D * L
        check("gradient", g_err, g_scale, g_tol,
              lambda: f"gradient err {g_err:.3e} > tol {g_tol:.3e}; ours {g_ours.tolist()} ipctk"
              f" {g_theirs.tolist()} (ipctk type {distance_type(kind, ns)})", ("inf norm",))
        stats.count(f"{kind} gradients")

    # CCD.
    c = case.get("ccd")
    if c is None:
        return
    t = c["t"]
    xi = c["min_separation"]
    keep = c["keep"]
    t_max = c["t_max"]
    d0 = math.sqrt(theirs)
    if not (isinstance(t, (int, float)) and 0.0 <= t <= t_max):
        fail(f"ccd bound {t!r} outside [0, t_max = {t_max}]")
        return
    if d0 <= xi * (1 - 1e-12):
        if t != 0.0:
            fail(f"ccd starts within xi (d0 {d0!r} <= xi {xi!r}) but bound {t!r} != 0")
        stats.count("ccd initially within xi")
        return
    if d0 <= xi * (1 + 1e-12):
        stats.count("ccd at xi within rounding (not compared)")
        return
    if t <= 0.0:
        fail(f"ccd bound 0 although d0 {d0!r} > xi {xi!r}")

    kept = xi + keep * (d0 - xi)  # distance additive CCD keeps at its bound
    delta = min(1e-6, 1e-3 * kept)
    ti = ipctk.TightInclusionCCD(tolerance=delta, conservative_rescaling=1.0)
    hit, toi = run_ccd(ti, kind, ns, ps, 0.0, t_max)
    stats.count("ccd compared with TightInclusion")
    if hit:
        stats.count("ccd TightInclusion impacts")
        if not t <= toi * (1 + 1e-9) + 1e-12:
            fail(f"ccd bound {t!r} beyond ipctk TightInclusion toi {toi!r}"
                 f" (d0 {d0:.3e}, xi {xi:.3e}, delta {delta:.1e})")
        if toi > 0:
            stats.ratios.append(t / toi)
    else:
        stats.count("ccd TightInclusion no impact")

    add = ipctk.AdditiveCCD(conservative_rescaling=1.0 - keep)
    a_hit, a_toi = run_ccd(add, kind, ns, ps, xi, t_max)
    theirs_t = a_toi if a_hit else t_max
    if c.get("stop") == "IterationCap":
        stats.count("ccd additive comparison skipped (our iteration cap)")
        return
    if not t >= theirs_t * (1 - 1e-9) - 1e-12:
        fail(f"ccd bound {t!r} more conservative than ipctk AdditiveCCD {theirs_t!r}"
             f" (hit {a_hit}, d0 {d0:.3e}, xi {xi:.3e})")
    if abs(t - theirs_t) <= 1e-9 * max(t, theirs_t) + 1e-15:
        stats.count("ccd equal to ipctk AdditiveCCD (1e-9)")
    elif t > theirs_t:
        stats.count("ccd larger than ipctk AdditiveCCD")
        stats.larger.append((name, t, theirs_t))
    stats.count("ccd compared with AdditiveCCD")


def main(argv):
    if len(argv) != 2:
        print("usage: ipctk_reference.py CASES.json")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        data = json.load(f)
    stats = Stats()
    mismatches = []
    n = 0
    for case in data.get("cases", []):
        n += 1
        try:
            compare_case(case, stats, mismatches)
        except Exception as err:  # a malformed case is a mismatch, not a crash
            mismatches.append(f"MISMATCH {case.get('name')}: {type(err).__name__}: {err}")

    for b in data.get("barrier", []):
        n += 1
        ours = b["value"]
        theirs = ipctk.barrier(b["d"], b["dhat"])
        if not abs(ours - theirs) <= 1e-12 * abs(theirs):
            mismatches.append(
                f"MISMATCH barrier d={b['d']!r} dhat={b['dhat']!r}: ours {ours!r} ipctk {theirs!r}")
        if theirs != 0:
            stats.rel("barrier relative error", abs(ours - theirs) / abs(theirs))
        stats.count("barrier values")

    for key in sorted(stats.counts):
        print(f"  {key}: {stats.counts[key]}")
    for key in sorted(stats.max_rel):
        print(f"  max {key}: {stats.max_rel[key]:.3e}")
    if stats.ratios:
        r = sorted(stats.ratios)
        print(f"  ccd bound / TightInclusion toi: min {r[0]:.3f} median {r[len(r) // 2]:.3f}"
              f" max {r[-1]:.6f} ({len(r)} impacts)")
    for name, t, theirs_t in stats.larger[:5]:
        print(f"  ccd larger than AdditiveCCD: {name}: ours {t!r} ipctk {theirs_t!r}")
    for line in mismatches:
        print(line)
    print(f"ipctk_reference: {n} cases compared, {len(mismatches)} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
