"""Tests of clients/python/ircg_client.py against a real ircgd.

Run by the C suite client_py (tests/integration/clients/test_client_py.c), which
starts the daemons and passes them in the environment:
  IRCG_TEST_URL        a daemon without tokens (2 workers)
  IRCG_TEST_TOKEN_URL  a daemon with tokens, IRCG_TEST_TOKEN one of them
  IRCG_TEST_DEAD_URL   a loopback address nobody listens on
Without IRCG_TEST_URL every test is skipped.  Python 3.9+, standard library.
"""

import json
import math
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_DIR = os.environ.get("IRCG_CLIENT_PY_DIR",
                            os.path.join(HERE, "..", "..", "..", "clients", "python"))
# IRCG_TEST_INSTALLED=1: the package installed in this interpreter's venv
# (pip install ./clients/python), not the source tree
INSTALLED = os.environ.get("IRCG_TEST_INSTALLED") == "1"
if not INSTALLED:
    sys.path.insert(0, CLIENT_DIR)

import ircg_client  # noqa: E402
from ircg_client import (Client, IrcgError, TransportError, WaitStopped,  # noqa: E402
                         WaitTimeout)

URL = os.environ.get("IRCG_TEST_URL")
TOKEN_URL = os.environ.get("IRCG_TEST_TOKEN_URL")
TOKEN = os.environ.get("IRCG_TEST_TOKEN")
DEAD_URL = os.environ.get("IRCG_TEST_DEAD_URL")


# ------------------------------------------------- an independent answer --

def _lcg(seed):
    s = seed
    while True:
        s = (s * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        yield ((s >> 11) / 2 ** 53) * 2 - 1


def least_norm_problem(m=6, n=15, seed=7):
    """A small underdetermined A, b and A^+ b = A'(AA')^-1 b, solved here by
    Gauss-Jordan elimination with partial pivoting."""
    g = _lcg(seed)
    A = [[next(g) for _ in range(n)] for _ in range(m)]
    b = [next(g) for _ in range(m)]
    M = [[sum(A[i][k] * A[j][k] for k in range(n)) for j in range(m)] + [b[i]]
         for i in range(m)]
    for col in range(m):
        piv = max(range(col, m), key=lambda r: abs(M[r][col]))
        M[col], M[piv] = M[piv], M[col]
        for r in range(m):
            if r != col:
                f = M[r][col] / M[col][col]
                M[r] = [M[r][k] - f * M[col][k] for k in range(m + 1)]
    y = [M[i][m] / M[i][i] for i in range(m)]
    xs = [sum(A[i][k] * y[i] for i in range(m)) for k in range(n)]
    return A, b, xs


def norm(v):
    return math.sqrt(sum(x * x for x in v))


def ls_spec(A, b, radius, max_iter, extra=None):
    spec = {"problem": {"type": "least_squares",
                        "data": {"source": "inline", "A": A, "b": b},
                        "domain": {"type": "l2_ball", "radius": radius},
                        "outer": {"type": "half_norm_sq"}},
            "algorithm": {"max_iter": max_iter}}
    spec.update(extra or {})
    return spec


SMALL = ls_spec([[1.0, 2.0, 0.5], [0.0, 1.0, -1.0]], [1.0, 2.0], 10.0, 50)
# long enough to be caught running; it ends by cancel
LONG = {"problem": {"type": "least_squares",
                    "data": {"source": "synthetic", "m": 200, "n": 400, "noise": 0, "seed": 3},
                    "domain": {"type": "l2_ball", "radius": 100},
                    "outer": {"type": "half_norm_sq"}},
        "algorithm": {"max_iter": 1000000000},
        "output": {"trace_every": 100}}


def stop_at_progress(ev):
    return ev.type == "progress"


@unittest.skipUnless(URL, "IRCG_TEST_URL is not set (the C suite client_py sets it)")
class ClientTest(unittest.TestCase):
    def setUp(self):
        self.c = Client(URL)

    def test_service(self):
        self.assertEqual(self.c.health()["status"], "ok")
        self.assertEqual(self.c.ready()["status"], "ready")
        v = self.c.version()
        self.assertRegex(v["ircgd"], r"^\d+\.\d+\.\d+")
        self.assertIn("libmicrohttpd", v)
        self.assertIn("ircgd_build_info{", self.c.metrics())
        status, body = self.c.request("PUT", "/v1/jobs")
        self.assertEqual(status, 405)
        self.assertIn(b"method-not-allowed", body)

    def test_least_norm_lifecycle(self):
        A, b, xs = least_norm_problem()
        spec = ls_spec(A, b, 1.5 * norm(xs), 20000, {"output": {"trace_every": 10}})
        dry = self.c.submit(spec, dry_run=True)
        self.assertIs(dry["valid"], True)
        self.assertEqual(dry["spec"]["problem"]["type"], "least_squares")

        job = self.c.submit(spec)
        self.assertIn(job["state"], ("queued", "running"))
        self.assertFalse(job["replayed"])
        events = []
        done = self.c.wait(job["id"], timeout=60, on_event=events.append)
        self.assertEqual(done["state"], "succeeded")
        self.assertEqual(done["progress"]["iteration"], 20000)
        # SSE ids 1, 2, 3, ...: no event lost or repeated
        self.assertEqual([e.id for e in events], list(range(1, len(events) + 1)))
        types = [e.type for e in events]
        self.assertIn("progress", types)
        self.assertEqual(events[-1].type, "state")
        self.assertEqual(events[-1].data["state"], "succeeded")

        res = self.c.result(job["id"])
        z = res["z"]["values"]
        err = norm([p - q for p, q in zip(z, xs)]) / norm(xs)
        self.assertLess(err, 5e-3)
        self.assertAlmostEqual(res["f_z"], 0.5 * sum(v * v for v in z),
                               delta=1e-12 * res["f_z"])
        self.assertEqual(res["status"], "max_iter")

        # the trace, page by page: t = 1, 10, 20, ..., 20000
        ts = [row["t"] for row in self.c.trace_rows(job["id"], page=700)]
        self.assertEqual(ts, [1] + list(range(10, 20001, 10)))
        rows = self.c.trace(job["id"], as_frame=False)
        self.assertEqual([r["t"] for r in rows], [1] + list(range(10, 20001, 10)))
        frame = self.c.trace(job["id"])  # a DataFrame when pandas is there
        self.assertEqual(len(frame), len(rows))
        if isinstance(frame, list):
            self.assertEqual(frame, rows)
        else:
            self.assertEqual(list(frame["t"]), [r["t"] for r in rows])
        whole = self.c.trace_csv(job["id"]).strip().split("\n")
        self.assertEqual(len(whole), 1 + len(rows))
        self.assertEqual([ln.split(",")[0] for ln in whole[1:]], [str(r["t"]) for r in rows])
        evs = list(self.c.watch(job["id"], timeout=30))  # finished: replayed to "end"
        self.assertEqual(evs[-1].type, "end")
        self.assertEqual([e.id for e in evs], list(range(1, len(evs) + 1)))
        page = self.c.trace_page(job["id"], after=19990)
        self.assertEqual([r["t"] for r in page["rows"]], [20000])
        self.assertEqual(page["next_after"], 20000)
        self.assertEqual(page["rows"][0]["f_z"], res["f_z"])
        csv = self.c.trace_page(job["id"], after=19980, format="csv")
        lines = csv.strip().split("\n")
        self.assertTrue(lines[0].startswith("t,elapsed,"))
        self.assertEqual([ln.split(",")[0] for ln in lines[1:]], ["19990", "20000"])
        col = lines[0].split(",").index("f_z")
        self.assertEqual(float(lines[-1].split(",")[col]), res["f_z"])
        self.assertEqual(self.c.snapshots(job["id"]), [])

        self.c.delete(job["id"])
        with self.assertRaises(IrcgError) as cm:
            self.c.job(job["id"])
        self.assertEqual(cm.exception.status, 404)
        self.assertEqual(cm.exception.title, "Job not found")
        self.assertEqual(cm.exception.type, "urn:ircg:problem:job-not-found")
        self.assertIn(job["id"], cm.exception.detail)

    def test_stated_accuracy(self):
        # a stop and no method: auto chooses the two-stage method (least
        # squares with fewer rows than unknowns, at most 2000, stated by
        # the spec), which reaches the
        # stated accuracy against the closed form A^+ b, and says so
        A, b, xs = least_norm_problem()
        spec = ls_spec(A, b, 1.5 * norm(xs), 1, None)
        spec["algorithm"] = {"stop": {"inner_gap_rel": 1e-8, "outer_gap_rel": 1e-4},
                             "time_limit": 30}
        dry = self.c.submit(spec, dry_run=True)
        self.assertEqual(dry["spec"]["algorithm"]["name"], "auto")
        self.assertEqual(dry["spec"]["algorithm"]["choice"]["name"], "two-stage")
        job = self.c.submit(spec)
        done = self.c.wait(job["id"], timeout=60)
        self.assertEqual(done["state"], "succeeded")
        res = self.c.result(job["id"])
        self.assertEqual((res["algorithm"], res["choice"]["name"]), ("two-stage", "two-stage"))
        self.assertEqual(res["status"], "converged")
        self.assertEqual(self.c.warnings(res), [])
        cert = self.c.certificate(job["id"])
        self.assertEqual(cert["answer"], "z")
        inner, outer = self.c.answer_gaps(cert)
        fstar = 0.5 * sum(v * v for v in xs)
        self.assertLessEqual(cert["f_lower"], fstar * (1 + 1e-12))
        self.assertLessEqual(outer, 1e-4 * max(abs(cert["f_z"]), abs(cert["f_lower"])))
        self.assertLess(abs(res["f_z"] - fstar), 1e-4 * fstar)
        self.assertLessEqual(inner, 1e-8 * (cert["g_x0"] - cert["g_upper"]))

    def test_poll_and_list(self):
        ids = []
        seen = []
        for _ in range(3):
            job = self.c.submit(SMALL)
            done = self.c.wait(job["id"], mode="poll", on_event=seen.append)
            self.assertEqual(done["state"], "succeeded")
            ids.append(job["id"])
        self.assertEqual(seen[-1].data["state"], "succeeded")
        self.assertTrue(all(e.id == 0 for e in seen))
        listed = [j["id"] for j in self.c.iter_jobs(page_size=1)]
        # newest first; other tests' jobs may sit around them
        pos = [listed.index(i) for i in ids]
        self.assertEqual(pos, sorted(pos, reverse=True))
        page = self.c.jobs(page_size=1)
        self.assertEqual(len(page["jobs"]), 1)
        self.assertTrue(page["next_page_token"])
        succeeded = [j["id"] for j in self.c.iter_jobs(state="succeeded")]
        self.assertTrue(set(ids) <= set(succeeded))
        for i in ids:
            self.c.delete(i)

    def test_problems(self):
        bad = {"problem": {"type": "least_squares",
                           "domain": {"type": "l2_ball", "radius": -1},
                           "outer": {"type": "half_norm_sq"}}, "bogus": 1}
        for dry in (False, True):
            with self.assertRaises(IrcgError) as cm:
                self.c.submit(bad, dry_run=dry)
            e = cm.exception
            self.assertEqual(e.status, 422)
            self.assertEqual(e.type, "urn:ircg:problem:invalid-spec")
            self.assertEqual(sorted(p for p, _ in e.errors),
                             ["/bogus", "/problem/data", "/problem/domain/radius"])
            self.assertIn("out of range", e.reason("/problem/domain/radius"))
            self.assertIsNone(e.reason("/problem"))
        with self.assertRaises(IrcgError) as cm:
            self.c.submit('{"problem": {')
        self.assertEqual(cm.exception.status, 400)
        self.assertEqual(cm.exception.type, "urn:ircg:problem:malformed-json")

        a = self.c.submit(SMALL, idempotency_key="py-key-1")
        b = self.c.submit(SMALL, idempotency_key="py-key-1")
        self.assertEqual(a["id"], b["id"])
        self.assertTrue(b["replayed"])
        other = dict(SMALL, algorithm={"max_iter": 7})
        with self.assertRaises(IrcgError) as cm:
            self.c.submit(other, idempotency_key="py-key-1")
        self.assertEqual(cm.exception.status, 422)
        self.assertEqual(cm.exception.type, "urn:ircg:problem:idempotency-key-reused")
        self.c.wait(a["id"])
        with self.assertRaises(IrcgError) as cm:
            self.c.cancel(a["id"])
        self.assertEqual(cm.exception.status, 409)

        with self.assertRaises(IrcgError) as cm:
            self.c.jobs(page_size=5000)
        self.assertEqual(cm.exception.status, 400)
        self.assertIsNotNone(cm.exception.reason("/query/page_size"))
        with self.assertRaises(IrcgError) as cm:
            self.c.trace_page(a["id"], limit=200000)
        self.assertIsNotNone(cm.exception.reason("/query/limit"))
        ghost = "j_0000000000000000ghost"
        for call in (self.c.job, self.c.result, self.c.cancel, self.c.delete,
                     self.c.snapshots, self.c.trace, self.c.wait,
                     lambda i: self.c.wait(i, mode="poll")):
            with self.assertRaises(IrcgError) as cm:
                call(ghost)
            self.assertEqual(cm.exception.status, 404)
        with self.assertRaises(IrcgError) as cm:
            self.c.job("../../healthz")  # escaped, not followed
        self.assertEqual(cm.exception.status, 404)
        self.c.delete(a["id"])

    def test_running_job(self):
        a = self.c.submit(LONG)
        with self.assertRaises(WaitStopped):
            self.c.wait(a["id"], timeout=30, on_event=stop_at_progress)
        with self.assertRaises(IrcgError) as cm:
            self.c.result(a["id"])
        e = cm.exception
        self.assertEqual(e.status, 409)
        self.assertEqual(e.type, "urn:ircg:problem:job-not-finished")
        self.assertIsNotNone(e.retry_after)
        self.assertEqual(e.problem()["state"], "running")
        with self.assertRaises(IrcgError) as cm:
            self.c.delete(a["id"])
        self.assertEqual(cm.exception.status, 409)
        for mode in ("events", "poll"):  # the timeout, to the moment
            t0 = time.monotonic()
            with self.assertRaises(WaitTimeout):
                self.c.wait(a["id"], timeout=0.3, mode=mode)
            self.assertGreaterEqual(time.monotonic() - t0, 0.3)
            self.assertLess(time.monotonic() - t0, 0.5)
        # watch: an iterator over the events as they come
        seen = []
        for ev in self.c.watch(a["id"], timeout=30):
            seen.append(ev.type)
            if ev.type == "progress":
                break
        self.assertEqual(seen[:2], ["state", "state"])
        t0 = time.monotonic()
        with self.assertRaises(WaitTimeout):
            for ev in self.c.watch(a["id"], timeout=0.4):
                pass
        self.assertLess(time.monotonic() - t0, 0.6)
        with self.assertRaises(WaitStopped):
            self.c.wait(a["id"], mode="poll", on_event=stop_at_progress)
        job = self.c.cancel(a["id"])
        self.assertTrue(job["cancel_requested"])
        done = self.c.wait(a["id"], timeout=60)
        self.assertEqual(done["state"], "cancelled")
        self.assertEqual(self.c.result(a["id"])["status"], "cancelled")
        self.c.delete(a["id"])

    def test_datasets_and_snapshots(self):
        lines, rows, cols = [], set(), set()
        for u in range(1, 26):
            for i in range(1, 19):
                if (u * 5 + i * 3) % 4 == 0 or u == i:
                    lines.append("%d::%d::%d::97830%04d" % (u, i, 1 + (u * i) % 5, u * 20 + i))
                    rows.add(u)
                    cols.add(i)
        data = ("\n".join(lines) + "\n").encode()
        ds = self.c.upload_dataset(data)
        self.assertFalse(ds["existed"])
        self.assertEqual((ds["format"], ds["n_rows"], ds["n_cols"], ds["nnz"], ds["bytes"]),
                         ("movielens", max(rows), max(cols), len(lines), len(data)))
        again = self.c.upload_dataset(data, "movielens")
        self.assertTrue(again["existed"])
        self.assertEqual(again["id"], ds["id"])
        self.assertEqual(self.c.dataset(ds["id"])["nnz"], len(lines))

        spec = {"problem": {"type": "matrix_completion",
                            "data": {"source": "dataset", "id": ds["id"]},
                            "delta": 5, "outer": "column_variance"},
                "algorithm": {"max_iter": 300}, "output": {"snapshot_every": 100}}
        job = self.c.submit(spec)
        events = []
        self.assertEqual(self.c.wait(job["id"], on_event=events.append)["state"], "succeeded")
        self.assertGreaterEqual(sum(e.type == "snapshot" for e in events), 3)
        snaps = self.c.snapshots(job["id"])
        self.assertEqual(sorted((s["iteration"], s["kind"]) for s in snaps),
                         [(i, k) for i in (100, 200, 300) for k in ("state", "x", "z")])
        x300 = [s for s in snaps if s["iteration"] == 300 and s["kind"] == "x"][0]
        blob = self.c.snapshot(job["id"], 300, "x")
        self.assertEqual(len(blob), x300["bytes"])
        self.assertEqual(blob[:4], b"PK\x03\x04")  # an .npz
        with self.assertRaises(IrcgError) as cm:
            self.c.snapshot(job["id"], 301, "x")
        self.assertEqual(cm.exception.type, "urn:ircg:problem:snapshot-not-found")
        with self.assertRaises(IrcgError) as cm:
            self.c.upload_dataset(b"1::1::5::1\n1::x::3::2\n", "movielens")
        self.assertEqual(cm.exception.status, 422)
        self.assertEqual(cm.exception.problem()["line"], 2)
        with self.assertRaises(IrcgError) as cm:
            self.c.dataset("abc")
        self.assertEqual(cm.exception.status, 404)
        self.c.delete(job["id"])

    def test_arguments(self):
        for url in ("ftp://127.0.0.1/", "127.0.0.1:8080", "http://"):
            with self.assertRaises(ValueError):
                Client(url)
        with self.assertRaises(ValueError):
            Client(URL, token="two\nlines")
        with self.assertRaises(ValueError):
            self.c.job("")
        with self.assertRaises(ValueError):
            self.c.wait("j_x", mode="sometimes")
        with self.assertRaises(ValueError):
            self.c.trace_page("j_x", format="xml")
        with self.assertRaises(ValueError):
            self.c.submit(SMALL, idempotency_key="")

    def test_installed(self):
        """From a venv: the package is the installed one, typed, with its
        console script."""
        if not INSTALLED:
            self.assertTrue(os.path.samefile(os.path.dirname(os.path.dirname(
                ircg_client.__file__)), CLIENT_DIR))
            return
        self.assertTrue(ircg_client.__file__.startswith(sys.prefix), ircg_client.__file__)
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(ircg_client.__file__),
                                                    "py.typed")))
        script = os.path.join(os.path.dirname(sys.executable), "ircg-client")
        p = subprocess.run([script, "--url", URL, "health"], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["health"]["status"], "ok")

    def test_whole_trace_of_25000_iterations(self):
        """trace(), trace_rows(), trace_csv() and the CLI's `trace --csv`
        all give every row of a long job (no silent cut at 10,000)."""
        n = 25000
        A, b, xs = least_norm_problem()
        job = self.c.submit(ls_spec(A, b, 1.5 * norm(xs), n, {"output": {"trace_every": 1}}))
        self.assertEqual(self.c.wait(job["id"], timeout=300)["state"], "succeeded")
        rows = self.c.trace(job["id"], as_frame=False)
        self.assertEqual([r["t"] for r in rows], list(range(1, n + 1)))
        doc = self.c.trace_page(job["id"])  # no limit: the whole trace in one answer
        self.assertEqual(len(doc["rows"]), n)
        self.assertEqual(doc["next_after"], n)
        self.assertEqual(sum(1 for _ in self.c.trace_rows(job["id"])), n)
        csv = self.c.trace_csv(job["id"])
        self.assertEqual(len(csv.splitlines()), n + 1)
        env = dict(os.environ, IRCG_URL=URL)
        if not INSTALLED:
            env["PYTHONPATH"] = CLIENT_DIR
        env.pop("IRCG_TOKEN", None)
        p = subprocess.run([sys.executable, "-m", "ircg_client", "trace", job["id"], "--csv"],
                           env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, csv)
        self.c.delete(job["id"])

    def test_readme_example(self):
        """clients/README.md's Python example runs as written and prints
        what the README says it prints (its last line to the character:
        the values are the same on the same BLAS kernels)."""
        root = os.path.join(HERE, "..", "..", "..")
        with open(os.path.join(root, "clients", "README.md")) as f:
            text = f.read()
        code = text.split("```python\n", 1)[1].split("```", 1)[0]
        printed = text.split("prints\n\n```\n", 1)[1].split("```", 1)[0].splitlines()
        build = os.environ.get("IRCG_BUILD_DIR", os.path.join(root, "build"))
        env = dict(os.environ, IRCG_URL=URL)
        if not INSTALLED:
            env["PYTHONPATH"] = CLIENT_DIR
        env.pop("IRCG_TOKEN", None)
        with tempfile.TemporaryDirectory() as tmp:  # the example writes into its cwd
            os.symlink(os.path.abspath(build), os.path.join(tmp, "build"))
            p = subprocess.run([sys.executable, "-c", code], cwd=tmp, env=env,
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            out = p.stdout.splitlines()
            self.assertTrue(out[0].startswith("submitted j_"), out)
            self.assertIn("state: succeeded", out)
            self.assertEqual(out[-1], printed[-1])
            with open(os.path.join(tmp, "trace.csv")) as f:
                self.assertEqual(len(f.read().splitlines()), 2001)  # a header, 2000 rows

    def test_cli(self):
        env = dict(os.environ, IRCG_URL=URL)
        if not INSTALLED:
            env["PYTHONPATH"] = CLIENT_DIR
        env.pop("IRCG_TOKEN", None)

        def run(*args, stdin=None):
            return subprocess.run([sys.executable, "-m", "ircg_client"] + list(args),
                                  input=stdin, env=env, capture_output=True, text=True,
                                  timeout=120)

        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "spec.json")
            with open(path, "w") as f:
                json.dump(SMALL, f)
            p = run("submit", path)
            self.assertEqual(p.returncode, 0, p.stderr)
            jid = json.loads(p.stdout)["id"]
            p = run("wait", jid)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(json.loads(p.stdout)["state"], "succeeded")
            self.assertIn("state: succeeded", p.stderr)
            p = run("status", jid)
            self.assertEqual(json.loads(p.stdout)["progress"]["iteration"], 50)
            p = run("result", jid)
            self.assertEqual(json.loads(p.stdout)["iterations"], 50)
            p = run("trace", jid, "--csv", "--after", "49", "--limit", "10")
            self.assertEqual(p.stdout.split("\n")[1].split(",")[0], "50")
            p = run("trace", jid)
            self.assertEqual([json.loads(ln)["t"] for ln in p.stdout.splitlines()],
                             list(range(1, 51)))
            p = run("submit", "-", "--wait", stdin=json.dumps(SMALL))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(json.loads(p.stdout)["state"], "succeeded")
            p = run("submit", "-", stdin='{"problem":{"type":"least_squares"}}')
            self.assertEqual(p.returncode, 1)
            self.assertIn("422", p.stderr)
            self.assertIn("/problem/data:", p.stderr)
            p = run("status", "nope")
            self.assertEqual(p.returncode, 1)
            self.assertIn("404", p.stderr)
            p = run("submit", os.path.join(tmp, "missing.json"))
            self.assertEqual(p.returncode, 2)
            self.assertEqual(run("delete", jid).returncode, 0)


@unittest.skipUnless(TOKEN_URL and TOKEN, "IRCG_TEST_TOKEN_URL/IRCG_TEST_TOKEN are not set")
class TokenTest(unittest.TestCase):
    def test_tokens(self):
        for c in (Client(TOKEN_URL), Client(TOKEN_URL, token=TOKEN + "x")):
            with self.assertRaises(IrcgError) as cm:
                c.submit(SMALL)
            self.assertEqual(cm.exception.status, 401)
            self.assertEqual(cm.exception.type, "urn:ircg:problem:unauthorized")
            with self.assertRaises(IrcgError) as cm:
                c.jobs()
            self.assertEqual(cm.exception.status, 401)
            self.assertEqual(c.health()["status"], "ok")  # probes stay open
        good = Client(TOKEN_URL, token=TOKEN)
        job = good.submit(SMALL)
        self.assertEqual(good.wait(job["id"])["state"], "succeeded")
        with self.assertRaises(IrcgError) as cm:
            Client(TOKEN_URL).wait(job["id"])
        self.assertEqual(cm.exception.status, 401)


@unittest.skipUnless(DEAD_URL, "IRCG_TEST_DEAD_URL is not set")
class RefusedTest(unittest.TestCase):
    def test_refused(self):
        c = Client(DEAD_URL)
        with self.assertRaises(TransportError) as cm:
            c.health()
        self.assertEqual(cm.exception.status, 0)
        for mode in ("events", "poll"):
            with self.assertRaises(TransportError):
                c.wait("j_x", mode=mode, max_failures=1)
        with self.assertRaises(TransportError):
            c.submit(SMALL)


if __name__ == "__main__":
    unittest.main(verbosity=2)
