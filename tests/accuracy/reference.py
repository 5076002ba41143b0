#!/usr/bin/python3
"""reference.py -- the exact bilevel solution of an instance, by CVXOPT.

    /usr/bin/python3 tests/accuracy/reference.py INSTANCE.npz [--json OUT] [--x]
    /usr/bin/python3 tests/accuracy/reference.py --hash INSTANCE.npz

INSTANCE.npz is what `ircg instance SPEC --npz` writes (api/instance_npz.c):
the least-squares or logistic-regression instance exactly as the solver
holds it.  The bilevel problem

    min f(x)  s.t.  x in argmin { g(z) : z in X }

is solved as a two-stage program by Debian's python3-cvxopt (run with
/usr/bin/python3: python3-numpy and python3-cvxopt are Debian packages,
`make deps` installs them; they are never a dependency of ircg or ircgd):

  stage 1   g* = min over X of g, and a minimizer x1;
  stage 2   f* = min over X of f subject to V_r' x = V_r' x1, where
            A = U S V' and V_r holds the right singular vectors of the r
            singular values above max(m, n) eps s_1.

Why stage 2 is that and not g(x) <= g* + tiny: g depends on x through
A x only (least squares through the residual A x - b, logistic regression
through the margins), and is strictly convex in A x (1/2 ||.||^2; the
logistic loss has l'' > 0), so every inner solution has the same A x:
the inner solution set is exactly {x in X : A x = A x1}, an affine
section of X, and V_r' x = V_r' x1 is the same set with independent rows
(CVXOPT wants the equalities of full row rank).  g(x) <= g* + tiny would
instead move f* by about sqrt(tiny): g grows quadratically away from its
solution set (least squares: g - g* >= s_r^2 dist^2 / 2 on the range), so
a tiny of 1e-12 relative leaves errors of 1e-6 in x and f, and a tiny at
CVXOPT's tolerances none of the digits the benchmark needs; the affine
section is exact up to the stage-1 error in A x1, which an interior-point
method makes to about its tolerance (measured: see the tests,
tests/unit/tools/test_accuracy_reference.c).  When r = n the inner solution is
one point: f* = f(x1), no stage 2.

Formulations (variables [x; t] with t the l1 ball's bounds -t <= x <= t,
sum t <= radius; the l2 ball a second-order cone; the simplex x >= 0,
1'x = radius; the box two bounds a coordinate):
  least squares, stage 1: the QP  min 1/2 x'(A'A)x - (A'b)'x  (coneqp);
  logistic, stage 1: cp with the loss sum log(1 + exp(-y_i a_i'x)), its
      gradient and Hessian A' diag(w) A;
  stage 2: the QPs of 1/2||x||^2, 1/2||x - c||^2, 1/2 x'Qx + q'x, the
      validation least squares through its normal matrix A_v'A_v
      (coneqp), or the validation logistic loss (cp).
Each objective is divided by its value at 0 (or 1) so that CVXOPT's
absolute tolerances are relative ones.

Reports (JSON): the instance's hash (--hash alone: sha256 over its
members but info_*, names and .npy bytes in name order; the standard
library only), g*, f*, x* (--x), each stage's status, iterations, gap
and infeasibilities as CVXOPT reports them, a certified bracket of g*
computed here from x1 (g is convex on all of R^n: g* >= g(x1) - max over
X of <grad g(x1), x1 - v>; g* <= g at x1 moved into X), the distance of
the stage-2 point from the inner solution set's equalities, the
seconds of CVXOPT's solves (and of everything; OpenBLAS on one thread
unless OPENBLAS_NUM_THREADS says otherwise), and warnings (a stage
whose status is not "optimal").  Where the inner solution is one point,
f* = f(x1) is as good as x1: a g flat near its minimizer (labels that are
nearly separable) makes x1, and f*, poor while g* is exact -- the scale
study's first logistic instance, whose labels were separable, had no
minimizer at all (tests/study/scale.c).
"""
import argparse
import hashlib
import json
import os
import sys
import time
import zipfile

L2, L1, SIMPLEX, BOX = 1, 2, 3, 4
HALF_NORM_SQ, DIST_SQ, QUADRATIC, VALIDATION = 1, 2, 3, 4
OUTER_NAMES = {HALF_NORM_SQ: "half_norm_sq", DIST_SQ: "dist_sq", QUADRATIC: "quadratic",
               VALIDATION: "validation"}
DOMAIN_NAMES = {L2: "l2_ball", L1: "l1_ball", SIMPLEX: "simplex", BOX: "box"}


def instance_hash(path):
    """sha256 of the instance's members (not info_*): the standard library
    only, so a test without numpy can name the instance."""
    h = hashlib.sha256()
    with zipfile.ZipFile(path) as z:
        for name in sorted(z.namelist()):
            if name.startswith("info_"):
                continue
            h.update(name.encode() + b"\0")
            h.update(z.read(name))
    return h.hexdigest()


# ----------------------------------------------------------------- data --

def load(path):
    import numpy as np
    d = np.load(path)
    inst = {k: d[k] for k in d.files}
    if int(inst["ircg_instance"]) != 1:
        sys.exit(f"reference.py: {path}: not an instance of layout 1")

    csr = {}

    def matrix(prefix):
        if prefix in inst:
            return np.asarray(inst[prefix], dtype=float)
        if prefix + "_indptr" not in inst:
            return None
        ptr, idx, val = inst[prefix + "_indptr"], inst[prefix + "_indices"], inst[prefix + "_data"]
        m, n = (int(v) for v in inst[prefix + "_shape"])
        out = np.zeros((m, n))
        rows = np.repeat(np.arange(m), np.diff(ptr))
        np.add.at(out, (rows, idx), val)
        csr[prefix] = (val, rows, idx, (m, n))
        return out

    p = {
        "kind": "least_squares" if int(inst["problem"]) == 1 else "logistic_regression",
        "A": matrix("A"), "b": np.asarray(inst["b"], dtype=float),
        "outer": int(inst["outer"]),
        "c": inst.get("c"), "Q": inst.get("Q"), "q": inst.get("q"),
        "Av": matrix("A_val"), "bv": inst.get("b_val"),
        "domain": int(inst["domain"]), "radius": float(inst["domain_radius"]),
        "lower": float(inst["domain_lower"]), "upper": float(inst["domain_upper"]),
        "digest": int(inst["info_data_digest"]) & (2**64 - 1),
    }
    p["m"], p["n"] = p["A"].shape
    p["A_csr"], p["Av_csr"] = csr.get("A"), csr.get("A_val")
    return p


# ------------------------------------------------------------ functions --

def lloss(s):
    import numpy as np
    return np.logaddexp(0.0, -s)


def g_of(p, x):
    import numpy as np
    z = p["A"] @ x
    if p["kind"] == "least_squares":
        r = z - p["b"]
        return 0.5 * float(r @ r)
    return float(np.sum(lloss(p["b"] * z)))


def grad_g(p, x):
    import numpy as np
    z = p["A"] @ x
    if p["kind"] == "least_squares":
        return p["A"].T @ (z - p["b"])
    y = p["b"]
    return p["A"].T @ (-y / (1.0 + np.exp(np.clip(y * z, -700, 700))))


def f_of(p, x):
    import numpy as np
    o = p["outer"]
    if o == HALF_NORM_SQ:
        return 0.5 * float(x @ x)
    if o == DIST_SQ:
        d = x - p["c"]
        return 0.5 * float(d @ d)
    if o == QUADRATIC:
        v = 0.5 * float(x @ (p["Q"] @ x))
        return v + (float(p["q"] @ x) if p["q"] is not None else 0.0)
    z = p["Av"] @ x
    if p["kind"] == "least_squares":
        r = z - p["bv"]
        return 0.5 * float(r @ r)
    return float(np.sum(lloss(p["bv"] * z)))


def support(p, gvec):
    """min over X of <gvec, v> (the LMO's value)."""
    import numpy as np
    k, R = p["domain"], p["radius"]
    if k == L2:
        return -R * float(np.linalg.norm(gvec))
    if k == L1:
        return -R * float(np.max(np.abs(gvec)))
    if k == SIMPLEX:
        return R * float(np.min(gvec))
    return float(np.sum(np.where(gvec > 0, p["lower"], p["upper"]) * gvec))


def into_domain(p, x):
    """x moved into X (x itself when it is there)."""
    import numpy as np
    k, R = p["domain"], p["radius"]
    if k == L2:
        nx = float(np.linalg.norm(x))
        return x if nx <= R else x * (R / nx)
    if k == L1:
        nx = float(np.sum(np.abs(x)))
        return x if nx <= R else x * (R / nx)
    if k == SIMPLEX:
        y = np.maximum(x, 0.0)
        s = float(np.sum(y))
        return y * (R / s) if s > 0 else np.full_like(x, R / len(x))
    return np.clip(x, p["lower"], p["upper"])


# ------------------------------------------------------- cone programs --

def domain_constraints(p, nv):
    """G, h, dims and equalities (E, e) of X on the variables [x; t; ...]
    (nv of them; t: n more for the l1 ball)."""
    import numpy as np
    n, k, R = p["n"], p["domain"], p["radius"]
    E, e = np.zeros((0, nv)), np.zeros(0)
    if k == L2:  # (R, x) in the second-order cone
        G = np.zeros((n + 1, nv))
        G[1:, :n] = -np.eye(n)
        h = np.zeros(n + 1)
        h[0] = R
        return G, h, {"l": 0, "q": [n + 1], "s": []}, E, e
    if k == L1:  # x - t <= 0, -x - t <= 0, sum t <= R
        G = np.zeros((2 * n + 1, nv))
        G[:n, :n], G[:n, n:2 * n] = np.eye(n), -np.eye(n)
        G[n:2 * n, :n], G[n:2 * n, n:2 * n] = -np.eye(n), -np.eye(n)
        G[2 * n, n:2 * n] = 1.0
        h = np.zeros(2 * n + 1)
        h[2 * n] = R
        return G, h, {"l": 2 * n + 1, "q": [], "s": []}, E, e
    if k == SIMPLEX:  # -x <= 0, 1'x = R
        G = np.zeros((n, nv))
        G[:, :n] = -np.eye(n)
        E = np.zeros((1, nv))
        E[0, :n] = 1.0
        return G, np.zeros(n), {"l": n, "q": [], "s": []}, E, np.array([R])
    G = np.zeros((2 * n, nv))  # the box
    G[:n, :n], G[n:, :n] = np.eye(n), -np.eye(n)
    h = np.concatenate([np.full(n, p["upper"]), np.full(n, -p["lower"])])
    return G, h, {"l": 2 * n, "q": [], "s": []}, E, e


def independent(E, e):
    """E x = e with its rows made independent (the SVD's), for CVXOPT."""
    import numpy as np
    if E.shape[0] == 0:
        return E, e
    U, S, Vt = np.linalg.svd(E, full_matrices=False)
    r = int(np.sum(S > max(E.shape) * np.finfo(float).eps * S[0]))
    return Vt[:r], (U[:, :r].T @ e) / S[:r]


def sparse(M):
    """A numpy matrix as CVXOPT's sparse matrix (the domain's G is mostly
    zeros: dense, an l1 ball of 730 unknowns took 47 s, sparse 0.0 s)."""
    import numpy as np
    from cvxopt import spmatrix
    i, j = np.nonzero(M)
    return spmatrix(M[i, j].tolist(), i.tolist(), j.tolist(), M.shape)


def cvx_options(maxiters):
    from cvxopt import solvers
    solvers.options.update({"show_progress": False, "abstol": 1e-12, "reltol": 1e-12,
                            "feastol": 1e-10, "maxiters": maxiters, "refinement": 3})


def report(sol, seconds, scale):
    """What CVXOPT says of its solve, in the units of the problem."""
    def num(key, s=1.0):
        v = sol.get(key)
        return None if v is None else float(v) * s
    return {"status": sol["status"], "iterations": int(sol.get("iterations") or 0),
            "primal_objective": num("primal objective", scale),
            "dual_objective": num("dual objective", scale),
            "gap": num("gap", scale), "relative_gap": num("relative gap"),
            "primal_infeasibility": num("primal infeasibility"),
            "dual_infeasibility": num("dual infeasibility"), "seconds": seconds}


def solve_qp(P, q, G, h, dims, E, e, maxiters=200):
    """coneqp on numpy arrays; (x, CVXOPT's dict, seconds)."""
    import numpy as np
    from cvxopt import matrix, solvers
    cvx_options(maxiters)
    E, e = independent(E, e)
    args = dict(G=sparse(G), h=matrix(h), dims=dims)
    if E.shape[0]:
        args.update(A=matrix(E), b=matrix(e))
    t0 = time.perf_counter()
    sol = solvers.coneqp(matrix(P), matrix(q), **args)
    return np.array(sol["x"]).ravel(), sol, time.perf_counter() - t0


def solve_logistic(Am, y, nv, G, h, dims, E, e, csr=None, maxiters=200):
    """cp: min sum log(1 + exp(-y a'x)) / scale over the cone constraints;
    x the first columns of Am (dense; csr = its CSR triplets, when the
    instance has them: the Hessian A' diag(w) A is then made by CVXOPT's
    sparse products, 0.27 s against 0.65 s dense on a9a's 32561 rows)."""
    import numpy as np
    from cvxopt import matrix, solvers, spdiag, spmatrix
    cvx_options(maxiters)
    E, e = independent(E, e)
    nx = Am.shape[1]
    scale = max(float(np.sum(lloss(np.zeros(len(y))))), 1.0)
    hessians = [0]  # cp reports no iteration count: one Hessian an iteration
    S = spmatrix(csr[0].tolist(), csr[1].tolist(), csr[2].tolist(), csr[3]) if csr else None

    def F(x=None, z=None):
        if x is None:
            return 0, matrix(0.0, (nv, 1))
        w = np.array(x).ravel()
        s = y * (Am @ w[:nx])
        val = float(np.sum(lloss(s))) / scale
        sig = 1.0 / (1.0 + np.exp(np.clip(s, -700, 700)))  # -l'(s)
        grad = np.zeros(nv)
        grad[:nx] = Am.T @ (-y * sig) / scale
        if z is None:
            return val, matrix(grad.reshape(1, -1))
        hessians[0] += 1
        H = np.zeros((nv, nv))
        d = sig * (1 - sig) / scale
        if S is not None:
            H[:nx, :nx] = np.array(matrix(S.T * spdiag(matrix(d)) * S))
        else:
            H[:nx, :nx] = (Am.T * d) @ Am
        return val, matrix(grad.reshape(1, -1)), matrix(float(z[0]) * H)

    args = dict(G=sparse(G), h=matrix(h), dims=dims)
    if E.shape[0]:
        args.update(A=matrix(E), b=matrix(e))
    t0 = time.perf_counter()
    sol = solvers.cp(F, **args)
    sol["iterations"] = hessians[0]
    return np.array(sol["x"]).ravel(), sol, time.perf_counter() - t0, scale


# --------------------------------------------------------------- stages --

def nvars(p):
    return 2 * p["n"] if p["domain"] == L1 else p["n"]


def stage1(p):
    import numpy as np
    n, nv = p["n"], nvars(p)
    G, h, dims, E, e = domain_constraints(p, nv)
    A, b = p["A"], p["b"]
    if p["kind"] == "least_squares":
        scale = 0.5 * float(b @ b) or 1.0  # b = 0: g* = 0, any scale
        P = np.zeros((nv, nv))
        P[:n, :n] = A.T @ A / scale
        q = np.zeros(nv)
        q[:n] = -(A.T @ b) / scale
        x, sol, sec = solve_qp(P, q, G, h, dims, E, e)
        return x[:n], report(sol, sec, scale), sec
    x, sol, sec, scale = solve_logistic(A, b, nv, G, h, dims, E, e, p["A_csr"])
    return x[:n], report(sol, sec, scale), sec


def outer_qp(p, nv):
    """f as 1/2 w'Pw + q'w (+ const) on the variables w, divided by scale."""
    import numpy as np
    n, o = p["n"], p["outer"]
    P, q = np.zeros((nv, nv)), np.zeros(nv)
    if o in (HALF_NORM_SQ, DIST_SQ):
        P[:n, :n] = np.eye(n)
        if o == DIST_SQ:
            q[:n] = -p["c"]
    elif o == QUADRATIC:
        P[:n, :n] = p["Q"]
        if p["q"] is not None:
            q[:n] = p["q"]
    else:  # the validation least squares
        P[:n, :n] = p["Av"].T @ p["Av"]
        q[:n] = -(p["Av"].T @ p["bv"])
    scale = max(float(np.max(np.abs(P))) if P.any() else 0.0, float(np.max(np.abs(q))), 1e-300)
    return P / scale, q / scale, scale


def range_basis(A):
    """V_r' (r x n): the rows of V' for the singular values above
    max(m, n) eps s_1 (numpy's matrix_rank rule)."""
    import numpy as np
    _, S, Vt = np.linalg.svd(A, full_matrices=False)
    if S.size == 0 or S[0] == 0:
        return Vt[:0], 0
    r = int(np.sum(S > max(A.shape) * np.finfo(float).eps * S[0]))
    return Vt[:r], r


def stage2(p, x1, Vr):
    import numpy as np
    n, nv = p["n"], nvars(p)
    G, h, dims, E, e = domain_constraints(p, nv)
    Es = np.zeros((Vr.shape[0], nv))
    Es[:, :n] = Vr
    E, e = np.vstack([E, Es]), np.concatenate([e, Vr @ x1])
    if p["outer"] == VALIDATION and p["kind"] == "logistic_regression":
        x, sol, sec, scale = solve_logistic(p["Av"], p["bv"], nv, G, h, dims, E, e, p["Av_csr"])
        return x[:n], report(sol, sec, scale), sec
    P, q, scale = outer_qp(p, nv)
    x, sol, sec = solve_qp(P, q, G, h, dims, E, e)
    return x[:n], report(sol, sec, scale), sec


def solve(path, want_x):
    import numpy as np
    t0 = time.perf_counter()
    p = load(path)
    out = {"instance_sha256": instance_hash(path), "problem": p["kind"], "m": p["m"],
           "n": p["n"], "domain": DOMAIN_NAMES[p["domain"]], "outer": OUTER_NAMES[p["outer"]],
           "data_digest": f"{p['digest']:016x}"}
    x1, r1, s1 = stage1(p)
    gg = grad_g(p, x1)
    fw = float(gg @ x1) - support(p, gg)
    x1in = into_domain(p, x1)
    out["stage1"] = r1
    out["g_star"] = g_of(p, x1)
    out["g_lower"] = max(g_of(p, x1) - max(fw, 0.0), 0.0)  # g convex on R^n, >= 0
    out["g_upper"] = g_of(p, x1in)
    Vr, rank = range_basis(p["A"])
    out["rank"] = rank
    solve_sec = s1
    if rank == p["n"]:
        out["formulation"] = "unique inner solution (rank A = n): f* = f(x1)"
        x = x1
        out["stage2"] = None
    else:
        out["formulation"] = ("stage 2 on {x in X : V_r'x = V_r'x1}, r = rank A (the same "
                              "A x for every inner solution)")
        x, r2, s2 = stage2(p, x1, Vr)
        out["stage2"] = r2
        out["stage2"]["equality_residual"] = float(np.max(np.abs(Vr @ (x - x1))))
        solve_sec += s2
    xin = into_domain(p, x)
    out["f_star"] = f_of(p, x)
    out["g_at_x_star"] = g_of(p, x)
    out["distance_outside_X"] = float(np.linalg.norm(x - xin))
    out["cvxopt_seconds"] = solve_sec
    out["seconds"] = time.perf_counter() - t0
    out["warnings"] = [f"{k}: CVXOPT's status is {out[k]['status']}" for k in ("stage1", "stage2")
                       if out[k] and out[k]["status"] != "optimal"]
    if want_x:
        out["x_star"] = [float(v) for v in x]
    return out


def main():
    # OpenBLAS on one thread, as ircg runs it (before NumPy loads it): on a
    # shared machine of two cores its threads made CVXOPT 2 to 25 times
    # slower (the portfolio 0.25 s against 0.01 s, fair-a9a 12 s against 5 s)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("instance")
    ap.add_argument("--json", help="write the report here (default: stdout)")
    ap.add_argument("--x", action="store_true", help="include x*")
    ap.add_argument("--hash", action="store_true", help="print the instance's hash only")
    a = ap.parse_args()
    if a.hash:
        print(instance_hash(a.instance))
        return
    try:
        import cvxopt  # noqa: F401
        import numpy  # noqa: F401
    except ImportError as e:
        sys.exit(f"reference.py: {e}: run it with /usr/bin/python3 after `make deps` "
                 "(python3-cvxopt, python3-numpy)")
    out = solve(a.instance, a.x)
    text = json.dumps(out, indent=1)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
