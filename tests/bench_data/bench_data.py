#!/usr/bin/python3
"""bench_data.py -- data in and answers out as users hold them (issue 39),
measured: a dense least-squares problem (200,000 x 500 by default) with a
validation split (50,000 more rows), held as NumPy arrays, goes through a
real daemon on loopback in one Client.solve call, from a fresh virtual
environment (Debian's python3 with --system-site-packages: NumPy, SciPy;
ircg_client installed there by pip, offline).

It reports, and checks:
  1. the upload against the same data inline as JSON: both timed on a
     tenth of the rows (the inline path's JSON tree costs ~80 bytes a
     number in the daemon, 10 GB for the whole data), and the upload on
     the whole data too; the upload must be >= 10x faster at equal size;
  2. the daemon's peak memory (VmHWM) through the solve against the
     per-job budget (--max-job-memory) and against the job's estimate (and
     at the end, after the inline dry run of a tenth, whose JSON tree the
     daemon holds too);
  3. x bit for bit against `ircg solve` on the same spec naming the same
     arrays as .npy files (OPENBLAS_NUM_THREADS=1 for both, as ircgd runs).

    tests/bench_data/bench_data.py --build build [--rows 200000 --cols 500
        --val-rows 50000 --iters 50 --budget 3G]

A measurement, not a test: `make bench-data` runs it (never make test);
exit status 1 when a check fails.  What it measured: tests/bench_data/README.md.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

# The part that runs inside the venv: arrays -> solve -> arrays.
INNER = r"""
import hashlib, io, json, os, sys, time, urllib.request
import numpy as np
import ircg_client
from ircg_client import Client, least_squares
from ircg_client.solve import upload_array

a = json.loads(sys.argv[1])
assert "/venv/lib/" in ircg_client.__file__, ircg_client.__file__  # installed in the venv
rng = np.random.default_rng(39)
m, n, mv = a["rows"], a["cols"], a["val_rows"]
A = rng.standard_normal((m + mv, n))
w = rng.standard_normal(n) / np.sqrt(n)
y = A @ w + 0.1 * rng.standard_normal(m + mv)
A, Av, b, bv = A[:m], A[m:], y[:m], y[m:]
class Timed(Client):
    # a Client that times its uploads (inside solve, too)
    upload_seconds = 0.0

    def upload_stream(self, *args, **kw):
        t = time.perf_counter()
        try:
            return super().upload_stream(*args, **kw)
        finally:
            Timed.upload_seconds += time.perf_counter() - t

c = Timed(a["url"], timeout=3600)
out = {"ircg_client": ircg_client.__file__}

# one call: arrays to a solved job and back to arrays, its data uploaded
# (the client hashes each array first and asks whether the daemon has it)
t = time.perf_counter()
sol = c.solve(least_squares(A, b, domain="l2_ball", radius=a["radius"], A_val=Av, b_val=bv),
              max_iter=a["iters"], progress="lines")
out["solve_s"] = time.perf_counter() - t
with open("/proc/%d/status" % a["pid"]) as f:  # the daemon's peak so far: the job's
    out["rss_after_solve"] = [int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:")][0]
out["whole_numbers"] = (m + mv) * (n + 1)
out["upload_whole_s"] = Timed.upload_seconds

def inline_seconds(k, kv):
    # the same data inline: serialized here, posted, parsed by the daemon
    t = time.perf_counter()
    spec = {"problem": {"type": "least_squares", "outer": "validation",
                        "data": {"source": "inline", "A": A[:k].tolist(), "b": b[:k].tolist(),
                                 "A_val": Av[:kv].tolist(), "b_val": bv[:kv].tolist()}}}
    body = json.dumps(spec)
    doc = c.submit(body, dry_run=True)
    assert doc["valid"], doc
    return time.perf_counter() - t, len(body)

def upload_seconds(k, kv):
    # the same data as datasets (new bytes: every one sent and checked)
    from ircg_client.problems import Matrix, Vector
    t = time.perf_counter()
    for name, arr, kind in (("A", A[:k], "matrix"), ("b", b[:k], "vector"),
                            ("A_val", Av[:kv], "matrix"), ("b_val", bv[:kv], "vector")):
        made = Matrix(name, arr) if kind == "matrix" else Vector(name, arr)
        assert not upload_array(c, made, kind, dedupe=False)["existed"]
    return time.perf_counter() - t

k, kv = m // 10, mv // 10
out["tenth_numbers"] = (k + kv) * (n + 1)
out["inline_tenth_s"], out["inline_tenth_bytes"] = inline_seconds(k, kv)
out["upload_tenth_s"] = upload_seconds(k, kv)
out["job"] = sol.id
out["status"] = sol.status
out["x_hex"] = sol.x.tobytes().hex()
out["estimate"] = c.job(sol.id).get("estimate")
spec = c._call("GET", "/v1/jobs/%s/spec" % sol.id).json()
# the same spec for `ircg solve`: the arrays as .npy files beside it
d = a["dir"]
for name, arr in (("A", A), ("b", b), ("A_val", Av), ("b_val", bv)):
    np.save(os.path.join(d, name + ".npy"), arr)
spec["problem"]["data"] = {"source": "file", "A_path": "A.npy", "b_path": "b.npy",
                           "A_val_path": "A_val.npy", "b_val_path": "b_val.npy"}
with open(os.path.join(d, "spec.json"), "w") as f:
    json.dump(spec, f)
print(json.dumps(out))
"""


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def peak_rss(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return -1


def bytes_of(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    return int(float(text[:-1]) * units[text[-1]]) if text[-1] in units else int(text)


def venv(work):
    """A fresh venv with the system's packages (NumPy, SciPy) and
    ircg_client pip-installed from a copy of clients/python, offline."""
    env = os.path.join(work, "venv")
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", env],
                   check=True)
    pip = os.path.join(env, "bin", "pip")
    src = os.path.join(work, "pysrc")
    shutil.copytree(os.path.join(ROOT, "clients", "python"), src,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    if subprocess.run([os.path.join(env, "bin", "python"), "-c", "import wheel"],
                      capture_output=True).returncode != 0:
        subprocess.run([pip, "install", "-q", "--no-index", "--find-links",
                        "/usr/share/python-wheels", "wheel"], check=False)
    subprocess.run([pip, "install", "-q", "--no-index", "--no-build-isolation", src],
                   check=True)
    return os.path.join(env, "bin", "python")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--rows", type=int, default=200000)
    p.add_argument("--cols", type=int, default=500)
    p.add_argument("--val-rows", type=int, default=50000)
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--radius", type=float, default=10.0)
    p.add_argument("--budget", default="3G", help="the daemon's --max-job-memory")
    a = p.parse_args()
    bins = os.path.join(os.path.abspath(a.build), "bin")
    work = os.path.join(os.path.abspath(a.build), "bench-data")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    python = venv(work)
    port = free_port()
    n_numbers = (a.rows + a.val_rows) * (a.cols + 1)
    log = open(os.path.join(work, "ircgd.log"), "w")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    daemon = subprocess.Popen(
        [os.path.join(bins, "ircgd"), "--listen", "127.0.0.1:%d" % port, "--db",
         os.path.join(work, "jobs.db"), "--data-dir", os.path.join(work, "data"), "--workers",
         "1", "--max-job-memory", a.budget, "--max-body", str(64 * n_numbers // 10 + (1 << 26)),
         "--max-elements", str(n_numbers), "--request-timeout", "3600"],
        stdout=log, stderr=log, env=env)
    ok = True
    try:
        url = "http://127.0.0.1:%d" % port
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        args = {"url": url, "pid": daemon.pid, "rows": a.rows, "cols": a.cols, "val_rows": a.val_rows,
                "iters": a.iters, "radius": a.radius, "dir": work, "root": ROOT}
        r = subprocess.run([python, "-c", INNER, json.dumps(args)], capture_output=True,
                           text=True, cwd=work)
        sys.stderr.write(r.stderr[-2000:])
        if r.returncode != 0:
            print("the solve failed", file=sys.stderr)
            return 1
        out = json.loads(r.stdout.strip().splitlines()[-1])
        rss = peak_rss(daemon.pid)
        budget = bytes_of(a.budget)
        cli = subprocess.run([os.path.join(bins, "ircg"), "solve", "spec.json", "--quiet",
                              "--result", "cli.json"], cwd=work, env=env, capture_output=True,
                             text=True)
        with open(os.path.join(work, "cli.json")) as f:
            cli_x = json.load(f)["x"]["values"]
        import array
        cli_hex = array.array("d", cli_x).tobytes().hex()
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(60)
        log.close()
    inline_rate = out["tenth_numbers"] / out["inline_tenth_s"]
    up_rate = out["tenth_numbers"] / out["upload_tenth_s"]
    whole_rate = out["whole_numbers"] / out["upload_whole_s"]
    est = (out.get("estimate") or {}).get("memory_bytes", 0)
    res = {
        "rows": a.rows, "cols": a.cols, "val_rows": a.val_rows, "iterations": a.iters,
        "inline_tenth_seconds": round(out["inline_tenth_s"], 3),
        "inline_tenth_json_bytes": out["inline_tenth_bytes"],
        "upload_tenth_seconds": round(out["upload_tenth_s"], 3),
        "upload_whole_seconds": round(out["upload_whole_s"], 3),
        "speedup_at_equal_size": round(up_rate / inline_rate, 1),
        "upload_whole_MB_per_s": round(8 * out["whole_numbers"] / out["upload_whole_s"] / 1e6, 1),
        "inline_numbers_per_s": round(inline_rate), "upload_numbers_per_s": round(whole_rate),
        "solve_call_seconds": round(out["solve_s"], 2), "status": out["status"],
        "daemon_peak_rss_after_solve_bytes": out["rss_after_solve"], "budget_bytes": budget,
        "estimate_bytes": est, "daemon_peak_rss_at_the_end_bytes": rss,
        "x_bit_equal_to_ircg_solve": cli_hex == out["x_hex"],
        "ircg_client": out["ircg_client"],
    }
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps(res, indent=1))
    checks = [("upload >= 10x faster than inline JSON at equal size",
               res["speedup_at_equal_size"] >= 10),
              ("the daemon's peak RSS through the solve within the per-job budget",
               0 < out["rss_after_solve"] <= budget),
              ("x bit-equal to ircg solve's", res["x_bit_equal_to_ircg_solve"])]
    for name, good in checks:
        print("%s: %s" % ("ok  " if good else "FAIL", name))
        ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
