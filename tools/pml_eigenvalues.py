#!/usr/bin/env python3
"""Eigenvalues of the semi-discrete C-PML equations of a 2D elastic block (docs/verification.md, "PML").

The equations of fem/pml_law.hpp and explicit/pml.hpp, written as one linear system y' = A y
(displacement, velocity, the nodes' and the points' memory variables) on a structured grid of
quad4 elements (2 x 2 Gauss points, row-sum lumped mass) or GLL elements of order P (nodal
quadrature), and its eigenvalues: one with a positive real part is a mode that grows whatever the
time step. `nodes=point` takes the mass side's d and alpha at the node's position; `nodes=average`
as the run does (explicit_fe::PmlNodeProfile: averaged as the lumped mass weighs them).

The layer's grid damping (model/pml.hpp) as the run has it: the flux of u + beta_e v in the layer's
elements, beta_e the mean over the element's nodes of eta (dt_s / 2)^2 max_k d_k (at most 0.1 dt_s), dt_s =
2 / omega_max of the block without its layer (`grid_damping=0`: the C-PML without it).

    tools/pml_eigenvalues.py nx=8 ny=8 nodes=point grid_damping=0   # the steel block: modes that grow
    tools/pml_eigenvalues.py nx=8 ny=8 nodes=average                # none
    tools/pml_eigenvalues.py nx=4 ny=4 element=gll order=4 faces=xmin,xmax
    # rock in 20 m GLL4 elements lined on every face (docs/verification.md): near 735 rad/s
    tools/pml_eigenvalues.py nx=7 ny=7 size=140 layer=40 youngs=6.628e9 poisson=0.253 density=2000 \
        frequency=10 reflection=1e-6 element=gll order=4 faces=xmin,xmax,ymin,ymax near=700,735,770 grid_damping=0

Keys (default): nx, ny (8), size (2.0 m), layer (0.5 m), youngs (210e9), poisson (0.3), density
(7850), frequency (600 Hz: alpha_max = pi f), reflection (1e-4), power (2), multiaxial (0),
faces (xmin,xmax), element (quad4 | gll), order (GLL), nodes (average | point), grid_damping
(0.3), near (none: every eigenvalue, dense, up to 8,000 unknowns; else angular frequencies, rad/s,
near which shift-invert Arnoldi finds the 16 closest eigenvalues each, for blocks of any size).
The outer faces of the layers are held, as in a run. Dense: a few thousand unknowns (8 x 8 quad4,
4 x 4 GLL of order 4) take seconds to a minute; a 7 x 7 GLL4 block (16,080 unknowns) near three
frequencies half a minute.
"""
import sys

import numpy as np
from scipy import sparse
from scipy.sparse import linalg
from numpy.polynomial import legendre


def gll(order):
    c = np.zeros(order + 1)
    c[-1] = 1.0
    r = np.concatenate([[-1.0], np.sort(legendre.legroots(legendre.legder(c))), [1.0]])
    return r, 2.0 / (order * (order + 1) * legendre.legval(r, c) ** 2)


def lagrange(r, t):
    n = len(r)
    value, slope = np.ones(n), np.zeros(n)
    for a in range(n):
        others = [b for b in range(n) if b != a]
        value[a] = np.prod([(t - r[b]) / (r[a] - r[b]) for b in others])
        slope[a] = sum(np.prod([(t - r[b]) / (r[a] - r[b]) for b in others if b != c]) / (r[a] - r[c]) for c in others)
    return value, slope


def system(nx=8, ny=8, size=2.0, layer=0.5, youngs=210e9, poisson=0.3, density=7850.0, frequency=600.0,
           reflection=1e-4, power=2.0, multiaxial=0.0, faces=("xmin", "xmax"), element="quad4", order=1,
           nodes="average", grid_damping=0.3, grid_step=None):
    lam = youngs * poisson / ((1 + poisson) * (1 - 2 * poisson))
    mu = youngs / (2 * (1 + poisson))
    d0 = (power + 1) * np.sqrt((lam + 2 * mu) / density) * np.log(1 / reflection) / (2 * layer)
    alpha_max = np.pi * frequency
    sides = {"xmin": (0, 0), "xmax": (0, 1), "ymin": (1, 0), "ymax": (1, 1)}

    def depths(x):  # the depth into each face's layer (negative outside it)
        return [x[sides[face][0]] - (size - layer) if sides[face][1] else layer - x[sides[face][0]]
                for face in faces]

    def profile(x):  # model/pml.hpp PmlProfile::at
        own, own_alpha = np.zeros(2), np.zeros(2)
        for face in faces:
            k, upper = sides[face]
            depth = x[k] - (size - layer) if upper else layer - x[k]
            if depth > 0:
                X = min(depth / layer, 1.0)
                own[k], own_alpha[k] = d0 * X ** power, alpha_max * (1 - X)
        d, alpha = own.copy(), own_alpha.copy()
        for k in range(2):
            for j in range(2):
                if j != k and own[j] > 0:
                    d[k] += multiaxial * own[j]
                    if not own[k] > 0:
                        alpha[k] = own_alpha[j]
        return d, alpha

    P = order if element == "gll" else 1
    r = gll(P)[0] if element == "gll" else np.array([-1.0, 1.0])
    g, w1 = gll(P) if element == "gll" else np.polynomial.legendre.leggauss(2)
    hx, hy = size / nx, size / ny
    line = lambda n, h: np.concatenate([[i * h + (r[a] + 1) / 2 * h for a in range(P)] for i in range(n)] + [[size]])
    xs, ys = line(nx, hx), line(ny, hy)
    gx = len(xs)
    X = np.array([[x, y] for y in ys for x in xs])
    n_nodes = len(X)
    if grid_damping > 0 and grid_step is None:  # dt_s: 2 / omega_max of the block without its layer
        K = system(nx, ny, size, layer, youngs, poisson, density, frequency, reflection, power, multiaxial, (),
                   element, order, nodes, 0.0)[0]
        omega = np.abs(linalg.eigs(K, k=2, which="LM", return_eigenvectors=False)).max()
        grid_step = 2.0 / omega
    points, mass, betas = [], np.zeros(n_nodes), []
    for ey in range(ny):
        for ex in range(nx):
            ids = [(ey * P + b) * gx + ex * P + a for b in range(P + 1) for a in range(P + 1)]
            for qb in range(len(g)):
                for qa in range(len(g)):
                    (va, sa), (vb, sb) = lagrange(r, g[qa]), lagrange(r, g[qb])
                    N = np.outer(vb, va).ravel()
                    dN = np.stack([np.outer(vb, sa).ravel() * 2 / hx, np.outer(sb, va).ravel() * 2 / hy], axis=1)
                    weight = w1[qa] * w1[qb] * hx * hy / 4
                    d, alpha = profile(N @ X[ids])
                    points.append((ids, dN, weight, d, alpha, N))
                    mass[ids] += density * weight * N
            # the element's grid damping: the mean over its nodes of max_k d_k (own, not multi-axial)
            own = [max(d0 * min(max(depth, 0.0) / layer, 1.0) ** power for depth in depths(X[a]))
                   if faces else 0.0 for a in ids]
            step = grid_step or 0.0  # (each node's beta at most 0.1 dt_s: model/pml.hpp pml_grid_beta_cap)
            betas.append(np.mean([min(grid_damping * step ** 2 / 4 * d, 0.1 * step) for d in own]))
    if nodes == "point":
        node_d = np.array([profile(x)[0] for x in X])
        node_alpha = np.array([profile(x)[1] for x in X])
    else:  # explicit_fe::pml_node_profile
        volume, dsum, dalpha = np.zeros(n_nodes), np.zeros((n_nodes, 2)), np.zeros((n_nodes, 2))
        for ids, dN, weight, d, alpha, N in points:
            volume[ids] += weight * N
            dsum[ids] += weight * np.outer(N, d)
            dalpha[ids] += weight * np.outer(N, d * alpha)
        node_d = dsum / volume[:, None]
        node_alpha = np.where(dsum > 0, dalpha / np.where(dsum > 0, dsum, 1.0), 0.0)
    held = np.zeros(n_nodes, bool)
    for face in faces:
        k, upper = sides[face]
        held |= np.abs(X[:, k] - (size if upper else 0.0)) < 1e-12
    C = np.array([[lam + 2 * mu, lam, 0.0], [lam, lam + 2 * mu, 0.0], [0.0, 0.0, mu]])
    Q = len(points)
    layout = [("u", 2 * n_nodes), ("v", 2 * n_nodes), ("node", 4 * n_nodes), ("grad", 4 * Q), ("flux", 4 * Q)]
    at, start = {}, 0
    for name, count in layout:
        at[name] = slice(start, start + count)
        start += count

    def rate(Y):  # y' for columns of states
        B = Y.shape[1]
        u, v = Y[at["u"]].reshape(n_nodes, 2, B), Y[at["v"]].reshape(n_nodes, 2, B)
        psi_node = Y[at["node"]].reshape(n_nodes, 2, 2, B)
        psi_grad, psi_flux = Y[at["grad"]].reshape(Q, 2, 2, B), Y[at["flux"]].reshape(Q, 2, 2, B)
        d_node, d_grad, d_flux = np.zeros_like(psi_node), np.zeros_like(psi_grad), np.zeros_like(psi_flux)
        force = np.zeros_like(u)
        for q, (ids, dN, weight, d, alpha, N) in enumerate(points):  # fem::pml_flux
            grad = np.einsum("nl,nkb->klb", dN, u[ids] + betas[q // len(g) ** 2] * v[ids])
            stretched = grad - d[None, :, None] * psi_grad[q]
            d_grad[q] = grad - (alpha + d)[None, :, None] * psi_grad[q]
            sigma = C @ np.array([stretched[0, 0], stretched[1, 1], stretched[0, 1] + stretched[1, 0]]).reshape(3, B)
            S = np.array([[sigma[0], sigma[2]], [sigma[2], sigma[1]]])
            flux = S.copy()
            for j in range(2):
                m = 1 - j
                for i in range(2):
                    flux[i, j] = S[i, j] + d[m] * psi_flux[q, j, i]
                    d_flux[q, j, i] = S[i, j] - alpha[m] * psi_flux[q, j, i]
            force[ids] -= weight * np.einsum("ijb,nj->nib", flux, dN)
        R = np.zeros_like(u)
        for a in range(n_nodes):  # fem::pml_node_force, with its cross term
            d, alpha = node_d[a], node_alpha[a]
            x, carried = u[a].copy(), np.zeros_like(u[a])
            for m in range(2):
                psi = psi_node[a, m]
                d_node[a, m] = x - alpha[m] * psi
                R[a] += d[m] * (carried - alpha[m] * x + alpha[m] ** 2 * psi)
                carried = carried + d[m] * (x - alpha[m] * psi)
                x = x + d[m] * psi
        acceleration = force / mass[:, None, None] - node_d.sum(1)[:, None, None] * v - R
        du = v.copy()
        du[held] = 0.0
        acceleration[held] = 0.0
        return np.concatenate([q.reshape(-1, B) for q in (du, acceleration, d_node, d_grad, d_flux)])

    blocks = []  # A's columns, 500 at a time, kept sparse
    for first in range(0, start, 500):
        last = min(start, first + 500)
        unit = np.zeros((start, last - first))
        unit[np.arange(first, last), np.arange(last - first)] = 1.0
        blocks.append(sparse.csc_matrix(rate(unit)))
    keep = np.ones(start, bool)
    for name in ("u", "v"):
        keep[np.arange(at[name].start, at[name].stop).reshape(n_nodes, 2)[held].ravel()] = False
    return sparse.hstack(blocks, format="csc")[keep][:, keep], d0, alpha_max


def main(arguments):
    keys, near = {}, None
    for argument in arguments:
        key, value = argument.split("=", 1)
        if key == "faces":
            keys[key] = tuple(value.split(","))
        elif key in ("element", "nodes"):
            keys[key] = value
        elif key in ("nx", "ny", "order"):
            keys[key] = int(value)
        elif key == "near":
            near = [float(w) for w in value.split(",")]
        else:
            keys[key] = float(value)
    A, d0, alpha_max = system(**keys)
    if near:
        A = A.astype(complex)  # (a complex shift: the complex LU)
        eigenvalues = np.concatenate([linalg.eigs(A, k=16, sigma=complex(0.0, w), return_eigenvectors=False)
                                      for w in near])
        largest = np.abs(eigenvalues).max()
    else:
        if A.shape[0] > 8000:
            print(f"{A.shape[0]} unknowns: too many for the dense solver; give near=omega,... (rad/s)")
            return 2
        eigenvalues = np.linalg.eigvals(A.toarray())
        largest = np.abs(eigenvalues).max()
    growing = np.unique(np.round(eigenvalues[(eigenvalues.real > 1e-6 * largest) & (eigenvalues.imag >= 0)], 6))
    growing = growing[np.argsort(-growing.real)]
    print(f"{A.shape[0]} unknowns, d0 {d0:.0f} 1/s, alpha_max {alpha_max:.0f} 1/s: {len(growing)} growing modes"
          + "".join(f"\n  rate {e.real:9.4g} 1/s at {e.imag:9.4g} rad/s" for e in growing[:10]))
    return 1 if len(growing) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
