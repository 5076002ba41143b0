#!/usr/bin/python3
"""scipy_ircg.py -- the paper's matrix-completion iterations (IR-CG, open
loop, column variance, delta 5, varsigma 0.05, p 1/2, X0 = 0.01 delta
[I/m0 0]') written with NumPy and SciPy as one would write them well: the
ratings in CSR, the gradient C = sigma U X + P_Omega(X - M) as a
LinearOperator over the low-rank factors and the sparse residual (never
formed), its top singular pair by ARPACK (scipy.sparse.linalg.svds, tol
1e-9, warm-started from the last vertex), X and Z on Omega updated in
place, g and f of x and z at every iteration (as ircg's trace has them).
For comparing ircg's time on the same iterations (issue 40); not part of
the test suite, and SciPy is no dependency of the project.

    scipy_ircg.py [RATINGS] [--iters N]     (python3-scipy from Debian)
"""
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla


def load(path):
    u, i, r = [], [], []
    with open(path) as f:
        for line in f:
            a = line.split("::")
            u.append(int(a[0]))
            i.append(int(a[1]))
            r.append(float(a[2]))
    u = np.unique(np.array(u), return_inverse=True)[1]
    i = np.unique(np.array(i), return_inverse=True)[1]
    return sp.csr_matrix((np.array(r), (u, i)))


def main():
    path = next((a for a in sys.argv[1:] if not a.startswith("--")),
                "build/data/ratings.dat")
    iters = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else 110
    M = load(path)
    M.sort_indices()
    n, p = M.shape
    rows = np.repeat(np.arange(n), np.diff(M.indptr))
    cols = M.indices
    m = M.data
    delta, vs, pw = 5.0, 0.05, 0.5
    m0 = min(n, p)
    d0 = 0.01 * delta / m0
    t0 = time.perf_counter()
    # X = ax X0 + P diag(wx) Q', Z = az X0 + P diag(wz) Q'; on Omega xo, zo
    ax = az = 1.0
    P = np.zeros((n, 0))
    Q = np.zeros((p, 0))
    wx = np.zeros(0)
    wz = np.zeros(0)
    diag = rows == cols
    xo = np.where(diag, d0, 0.0)
    zo = xo.copy()
    v = None
    S = 0.0
    for t in range(iters):
        sigma = vs * (t + 1) ** -pw
        R = sp.csr_matrix((xo - m, cols, M.indptr), shape=(n, p))

        def xv(y):  # X y
            y = np.ravel(y)
            out = np.zeros(n)
            out[:m0] = ax * d0 * y[:m0]
            return out + P @ (wx * (Q.T @ y))

        def xtv(y):  # X' y
            y = np.ravel(y)
            out = np.zeros(p)
            out[:m0] = ax * d0 * y[:m0]
            return out + Q @ (wx * (P.T @ y))

        def cv(y):
            y = np.ravel(y)
            a = xv(y)
            return sigma * (a - a.mean()) + R @ y

        def ctv(y):
            y = np.ravel(y)
            return sigma * xtv(y - y.mean()) + R.T @ y

        op = sla.LinearOperator((n, p), matvec=cv, rmatvec=ctv, dtype=np.float64)
        uu, ss, vt = sla.svds(op, k=1, tol=1e-9, v0=v)
        u1, v1 = uu[:, 0], vt[0]
        v = v1
        alpha = 2.0 / (t + 2)
        S1 = S + 2.0 * (t + 1) * sigma
        cz, cxo = S / S1, -(t + 1) * t * sigma / S1
        cxn = (t + 2) * (t + 1) * sigma / S1
        # x' = (1 - alpha) x + alpha V, V = -delta u v'; z' = cz z + cxo x + cxn x'
        xn = (1 - alpha) * xo - alpha * delta * u1[rows] * v1[cols]
        zo = cz * zo + cxo * xo + cxn * xn
        xo = xn
        P = np.column_stack([P, u1])
        Q = np.column_stack([Q, v1])
        wx_old = np.append(wx, 0.0)
        wx = np.append((1 - alpha) * wx, -alpha * delta)
        wz = cz * np.append(wz, 0.0) + cxo * wx_old + cxn * wx
        az = cz * az + cxo * ax + cxn * (1 - alpha) * ax
        ax = (1 - alpha) * ax
        S = S1
        # g and f of both sides, as the trace has them
        g_x = 0.5 * np.dot(xo - m, xo - m)
        g_z = 0.5 * np.dot(zo - m, zo - m)
        GP, GQ = P.T @ P, Q.T @ Q
        sP = P.sum(axis=0)
        f = []
        for a, w in ((ax, wx), (az, wz)):
            fro = (a * d0) ** 2 * m0 + 2 * a * d0 * np.dot(w, np.einsum("ij,ij->j", P[:m0], Q[:m0])) \
                + w @ (GP * GQ) @ w
            cs = Q @ (w * sP)
            cs[:m0] += a * d0
            f.append(0.5 * (fro - cs @ cs / n))
    dt = time.perf_counter() - t0
    print("scipy_ircg: %d iterations in %.3f s  g(x) %.9e  f(x) %.9e  g(z) %.9e  f(z) %.9e"
          % (iters, dt, g_x, f[0], g_z, f[1]))


if __name__ == "__main__":
    main()
