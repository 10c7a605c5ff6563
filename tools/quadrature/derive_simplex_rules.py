#!/usr/bin/python3
"""Derive fully symmetric quadrature rules on the triangle and tetrahedron.

A rule is given by its orbit structure: a list of orbit types, each the set of all permutations of
a barycentric point with a fixed pattern of repeated coordinates:

  triangle:    S3 (1/3, 1/3, 1/3)        1 point,  0 parameters
               S21 (a, a, 1-2a)          3 points, 1 parameter
               S111 (a, b, 1-a-b)        6 points, 2 parameters
  tetrahedron: S4 (1/4, 1/4, 1/4, 1/4)   1 point,  0 parameters
               S31 (a, a, a, 1-3a)       4 points, 1 parameter
               S22 (a, a, 1/2-a, 1/2-a)  6 points, 1 parameter
               S211 (a, a, b, 1-2a-b)   12 points, 2 parameters
               S1111 (a, b, c, 1-a-b-c) 24 points, 3 parameters

Every orbit also has one weight (shared by its points). The unknowns are found from the moment
equations: the rule must integrate every monomial x^i y^j (z^k) of total degree <= `degree` over the
unit simplex (vertex 0 at the origin, area 1/2 / volume 1/6, Cartesian coordinates = barycentric
coordinates 1..d) exactly; the exact values are i! j! k! / (i + j + k + d)!.

1. Search: Levenberg-Marquardt (scipy.optimize.least_squares) from many random starts, in a
   parametrisation that keeps every point strictly inside (softmax of free variables) and every
   weight positive (exponential), on the relative moment residuals in float64.
2. Keep converged solutions whose orbits are non-degenerate and whose points are all distinct.
3. Polish: Gauss-Newton on the raw parameters (barycentric coordinates and weights) with the
   residual evaluated in exact-rational-moment 50-digit decimal arithmetic (or mpmath where
   installed) and the Jacobian in float64; each step gains ~10 digits, so a few steps give
   parameters correct to far beyond double precision.
4. Print the distinct solutions (the one with the largest smallest weight first) and the C++
   lines for src/tremor/fem/quadrature.hpp, 17 significant digits.

Usage:
  derive_simplex_rules.py                        # the rules in quadrature.hpp (degrees 6..8)
  derive_simplex_rules.py tet 7 S4 S31 S22 S211 S211 [--starts N] [--seed S]
"""

import argparse
import itertools
import math
import sys
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
from scipy.optimize import least_squares

getcontext().prec = 50

# Orbit type -> (dimension, number of parameters, function params -> barycentric representative).
ORBITS = {
    "S3": (2, 0, lambda p, one: [one / 3, one / 3, one / 3]),
    "S21": (2, 1, lambda p, one: [p[0], p[0], one - 2 * p[0]]),
    "S111": (2, 2, lambda p, one: [p[0], p[1], one - p[0] - p[1]]),
    "S4": (3, 0, lambda p, one: [one / 4, one / 4, one / 4, one / 4]),
    "S31": (3, 1, lambda p, one: [p[0], p[0], p[0], one - 3 * p[0]]),
    "S22": (3, 1, lambda p, one: [p[0], p[0], one / 2 - p[0], one / 2 - p[0]]),
    "S211": (3, 2, lambda p, one: [p[0], p[0], p[1], one - 2 * p[0] - p[1]]),
    "S1111": (3, 3, lambda p, one: [p[0], p[1], p[2], one - p[0] - p[1] - p[2]]),
}
ORBIT_SIZE = {"S3": 1, "S21": 3, "S111": 6, "S4": 1, "S31": 4, "S22": 6, "S211": 12, "S1111": 24}

# The rules embedded in quadrature.hpp: (shape, degree, structure, random starts, seed). The starts
# and seeds are the ones that produced the tabulated solutions (the first solution printed).
TABLE = [
    ("tri", 6, ["S21", "S21", "S111"], 60, 2024),
    ("tri", 7, ["S21", "S111", "S111"], 60, 2024),
    ("tri", 8, ["S3", "S21", "S21", "S21", "S111"], 60, 2024),
    ("tet", 6, ["S31", "S31", "S31", "S211"], 5, 2024),
    ("tet", 7, ["S4", "S31", "S22", "S211", "S211"], 82, 2024),
    ("tet", 8, ["S31", "S31", "S31", "S31", "S22", "S211", "S211"], 1, 7),
]


class Problem:
    def __init__(self, dim, degree, structure):
        self.dim, self.degree, self.structure = dim, degree, structure
        for s in structure:
            if ORBITS[s][0] != dim:
                raise SystemExit(f"orbit {s} does not belong to dimension {dim}")
        self.exps = [e for n in range(degree + 1) for e in itertools.product(range(n + 1), repeat=dim) if sum(e) == n]
        self.exps_np = np.array(self.exps, dtype=float)
        self.exact = [Fraction(math.prod(math.factorial(k) for k in e), math.factorial(sum(e) + dim)) for e in self.exps]
        self.exact_np = np.array([float(x) for x in self.exact])
        self.measure = Fraction(1, math.factorial(dim))
        self.n_params = [ORBITS[s][1] for s in structure]
        self.n_unknowns = sum(self.n_params) + len(structure)
        self.n_points = sum(ORBIT_SIZE[s] for s in structure)
        # Index permutations of each orbit, applied to a symbolic representative (positions).
        self.perm_idx = []
        for s in structure:
            rep = ORBITS[s][2]([Fraction(1, 7), Fraction(2, 11), Fraction(3, 13)], Fraction(1))
            # Distinct permutations as index tuples (by value of the generic representative).
            seen, idx = [], []
            for perm in itertools.permutations(range(dim + 1)):
                t = tuple(rep[i] for i in perm)
                if t not in seen:
                    seen.append(t)
                    idx.append(perm)
            self.perm_idx.append(idx)

    # Raw parameters: per orbit its barycentric parameters, then its weight.
    def split(self, x):
        out, k = [], 0
        for n in self.n_params:
            out.append((x[k:k + n], x[k + n]))
            k += n + 1
        return out

    def points_weights(self, x, one=1.0):
        pts, wts = [], []
        for (p, w), s, idx in zip(self.split(x), self.structure, self.perm_idx):
            lam = ORBITS[s][2](p, one)
            for perm in idx:
                pts.append([lam[perm[i]] for i in range(self.dim + 1)])
                wts.append(w)
        return pts, wts

    def residual(self, x):
        pts, wts = self.points_weights(x)
        cart = np.array(pts, dtype=float)[:, 1:]
        mono = np.prod(cart[:, None, :] ** self.exps_np[None, :, :], axis=2)
        return (np.array(wts, dtype=float) @ mono - self.exact_np) / self.exact_np

    def residual_decimal(self, x):
        pts, wts = self.points_weights(x, Decimal(1))
        res = []
        for e, ex in zip(self.exps, self.exact):
            s = Decimal(0)
            for p, w in zip(pts, wts):
                term = w
                for d in range(self.dim):
                    if e[d]:
                        term *= p[d + 1] ** e[d]
                s += term
            exd = Decimal(ex.numerator) / Decimal(ex.denominator)
            res.append((s - exd) / exd)
        return res

    # Search parametrisation: softmax keeps points inside, exp keeps weights positive.
    def from_search(self, y):
        x, k = [], 0
        for s, n in zip(self.structure, self.n_params):
            t = y[k:k + n]
            w = math.exp(y[k + n]) * float(self.measure) / self.n_points
            k += n + 1
            if s in ("S21", "S22"):
                x.append(0.5 / (1.0 + math.exp(-t[0])))
            elif s == "S31":
                x.append(1.0 / 3.0 / (1.0 + math.exp(-t[0])))
            elif s == "S111":
                e = np.exp(np.array([t[0], t[1], 0.0]))
                x.extend(list(e[:2] / e.sum()))
            elif s == "S211":
                e = np.exp(np.array([t[0], t[0], t[1], 0.0]))
                x.extend([e[0] / e.sum(), e[2] / e.sum()])
            elif s == "S1111":
                e = np.exp(np.array([t[0], t[1], t[2], 0.0]))
                x.extend(list(e[:3] / e.sum()))
            x.append(w)
        return np.array(x)

    def valid(self, x, tol=1e-7):
        pts, wts = self.points_weights(x)
        pts = np.array(pts, dtype=float)
        if min(wts) <= 0 or pts.min() <= tol:
            return False
        for (p, _), s in zip(self.split(x), self.structure):
            lam = ORBITS[s][2](p, 1.0)
            vals = sorted(set(round(v, 6) for v in lam))
            expected = {"S3": 1, "S21": 2, "S111": 3, "S4": 1, "S31": 2, "S22": 2, "S211": 3, "S1111": 4}[s]
            if len(vals) != expected:
                return False  # the orbit collapsed onto a smaller one
        diff = pts[:, None, :] - pts[None, :, :]
        dist = np.sqrt((diff ** 2).sum(-1)) + np.eye(len(pts))
        return dist.min() > 1e-6


def polish(prob, x, steps=12):
    xd = [Decimal(repr(float(v))) for v in x]
    for _ in range(steps):
        f = prob.residual_decimal(xd)
        xf = np.array([float(v) for v in xd])
        h = 1e-6
        J = np.empty((len(f), len(xf)))
        for j in range(len(xf)):
            e = np.zeros_like(xf)
            e[j] = h * max(1.0, abs(xf[j]))
            J[:, j] = (prob.residual(xf + e) - prob.residual(xf - e)) / (2 * e[j])
        step = np.linalg.lstsq(J, np.array([float(v) for v in f]), rcond=None)[0]
        xd = [a - Decimal(repr(float(s))) for a, s in zip(xd, step)]
    res = max(abs(v) for v in prob.residual_decimal(xd))
    return xd, res


def search(prob, starts, seed, verbose=True):
    rng = np.random.default_rng(seed)
    found = []
    n_y = prob.n_unknowns
    for trial in range(starts):
        y0 = rng.normal(0.0, 1.5, n_y)
        try:
            sol = least_squares(lambda y: prob.residual(prob.from_search(y)), y0, method="lm", xtol=1e-15,
                                ftol=1e-15, gtol=1e-15, max_nfev=400 * n_y)
        except (FloatingPointError, OverflowError, ValueError):
            continue
        x = prob.from_search(sol.x)
        if not np.all(np.isfinite(x)) or np.max(np.abs(prob.residual(x))) > 1e-9 or not prob.valid(x):
            continue
        xd, res = polish(prob, x)
        xf = np.array([float(v) for v in xd])
        if res > Decimal("1e-30") or not prob.valid(xf):
            continue
        key = canonical(prob, xf)
        if any(np.max(np.abs(key - canonical(prob, g[1]))) < 1e-8 for g in found):
            continue
        found.append((xd, xf, res))
        if verbose:
            print(f"  start {trial}: solution {len(found)}, min weight {min(prob.points_weights(xf)[1]):.3e}",
                  file=sys.stderr)
    # Largest smallest weight first.
    found.sort(key=lambda g: -min(prob.points_weights(g[1])[1]))
    return found


def canonical(prob, x):
    """Sorted representation independent of the order of orbits of one type and of a <-> 1/2-a."""
    rows = []
    for (p, w), s in zip(prob.split(x), prob.structure):
        lam = sorted(ORBITS[s][2](p, 1.0))
        rows.append([ORBIT_SIZE[s]] + lam + [1.0] * (prob.dim + 1 - len(lam)) + [w])
    rows.sort()
    return np.array(rows).ravel()


def cxx_lines(prob, xd):
    """detail::add_orbit calls: the orbit representative (all barycentric coordinates, 17 significant
    digits; equal coordinates printed identically) and the weight of each of its points."""
    lines = [f"// {' + '.join(prob.structure)}, {prob.n_points} points"]
    for (p, w), s in zip(prob.split(xd), prob.structure):
        if s in ("S3", "S4"):
            c = "1.0 / 3.0" if s == "S3" else "0.25"
            args = ", ".join([c] * (prob.dim + 1))
        else:
            lam = ORBITS[s][2](p, Decimal(1))
            # Canonical representative: S22 with a < 1/4; S211 as (a, a, b, c) with b < c; S111 sorted.
            if s == "S22" and p[0] > Decimal(1) / 4:
                lam = [lam[2], lam[2], lam[0], lam[0]]
            if s == "S211" and lam[2] > lam[3]:
                lam = [lam[0], lam[1], lam[3], lam[2]]
            if s == "S111":
                lam = sorted(lam)
            args = ", ".join(f"{float(v):.17g}" for v in lam)
        line = f"detail::add_orbit(rule, {{{args}}}, {float(w):.17g});"
        if len(line) > 112:
            line = f"detail::add_orbit(rule, {{{args}}},\n                  {float(w):.17g});"
        lines.extend(line.split("\n"))
    return lines


def report(shape, degree, structure, starts, seed):
    dim = 2 if shape == "tri" else 3
    prob = Problem(dim, degree, structure)
    print(f"{shape} degree {degree}: {' + '.join(structure)} = {prob.n_points} points, "
          f"{prob.n_unknowns} unknowns, {len(prob.exps)} monomial equations")
    found = search(prob, starts, seed)
    if not found:
        print("  no positive interior solution found")
        return None
    for i, (xd, xf, res) in enumerate(found):
        pts, wts = prob.points_weights(xf)
        rounded = [float(f"{float(v):.17g}") for v in xd]
        res64 = np.max(np.abs(prob.residual(np.array(rounded))))
        print(f"  solution {i + 1}: min weight {min(wts):.6e}, min barycentric {np.min(pts):.6e}, "
              f"decimal residual {float(res):.1e}, residual with 17-digit values in float64 {res64:.1e}")
        for line in cxx_lines(prob, xd):
            print("    " + line)
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shape", nargs="?", choices=["tri", "tet"])
    ap.add_argument("degree", nargs="?", type=int)
    ap.add_argument("structure", nargs="*", help="orbit types, e.g. S21 S21 S111")
    ap.add_argument("--starts", type=int, default=None)
    ap.add_argument("--seed", type=int, default=2024, help="random seed (default 2024; the table keeps its own)")
    args = ap.parse_args()
    np.seterr(all="ignore")
    if args.shape is None:
        for shape, degree, structure, starts, seed in TABLE:
            report(shape, degree, structure, args.starts or starts, seed)
    else:
        report(args.shape, args.degree, args.structure, args.starts or 300, args.seed)


if __name__ == "__main__":
    main()
