"""Tests of the Python client with NumPy, SciPy, pandas, tqdm and
scikit-learn (Debian's python3-numpy, python3-scipy, python3-pandas,
python3-tqdm, python3-sklearn) against a real ircgd: uploads in every
format the users' libraries write, exact to the bit; malformed ones
refused at their line or offset with nothing kept; problems built from
arrays and solved in one call; the answers as arrays; the estimators
under scikit-learn's check_estimator; and the client without any of
these libraries.

Run by the C suite client_numpy (tests/integration/clients/
test_client_numpy.c), which starts the daemon and passes it in the
environment: IRCG_TEST_URL, and IRCG_TEST_DATA_DIR its --data-dir.
"""

import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_DIR = os.path.join(HERE, "..", "..", "..", "clients", "python")
sys.path.insert(0, CLIENT_DIR)

import numpy as np  # noqa: E402
import scipy.io  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from ircg_client import (Client, IrcgError, IrcgWarning, JobFailed,  # noqa: E402
                         least_squares, logistic_regression, matrix_completion)
from ircg_client.npyio import read_npz  # noqa: E402

# short solves warn (inner_unsolved), as they should; the test of the
# warnings themselves records them
warnings.filterwarnings("ignore", category=IrcgWarning)

URL = os.environ.get("IRCG_TEST_URL")
DATA_DIR = os.environ.get("IRCG_TEST_DATA_DIR", "")
DATASETS = os.path.join(DATA_DIR, "datasets")


def rng(seed=1):
    return np.random.default_rng(seed)


def bits(a):
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).tobytes()


def listing():
    return sorted(os.listdir(DATASETS)) if os.path.isdir(DATASETS) else []


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not URL:
            raise unittest.SkipTest("IRCG_TEST_URL not set (run by the C suite client_numpy)")
        cls.c = Client(URL, timeout=120)

    def upload(self, path_or_bytes, **kw):
        if isinstance(path_or_bytes, (bytes, bytearray)):
            return self.c.upload_dataset(path_or_bytes, **kw)
        return self.c.upload_file(path_or_bytes, **kw)

    def solve_spec(self, data, n_iter=60, problem="least_squares"):
        spec = {"problem": {"type": problem, "data": data,
                            "domain": {"type": "l2_ball", "radius": 20}},
                "algorithm": {"max_iter": n_iter}}
        job = self.c.wait(self.c.submit(spec)["id"], timeout=120)
        self.assertEqual(job["state"], "succeeded", job)
        return read_npz(self.c.result_npz(job["id"], "x"))["x"]


# ---------------------------------------------------------------- uploads --

class Uploads(Base):
    def test_every_double_comes_back_bit_for_bit(self):
        """The stored file is the bytes sent; the job reads the same
        doubles: its answer is the inline spec's, bit for bit."""
        g = rng(2)
        A = g.standard_normal((30, 8))
        A.flat[:6] = [-0.0, 5e-324, 2.2250738585072014e-308, 1e30, -1e30, np.pi]
        b = g.standard_normal(30)
        buf = io.BytesIO()
        np.save(buf, A)
        ds = self.upload(buf.getvalue())
        self.assertEqual((ds["kind"], ds["format"], ds["n_rows"], ds["n_cols"]),
                         ("matrix", "npy", 30, 8))
        self.assertEqual(ds["id"], hashlib.sha256(buf.getvalue()).hexdigest())
        with open(os.path.join(DATASETS, ds["id"]), "rb") as f:
            self.assertEqual(f.read(), buf.getvalue())
        bd = self.upload(_npy(b), kind="vector")
        x_ds = self.solve_spec({"source": "dataset", "id": ds["id"], "b_id": bd["id"]})
        x_in = self.solve_spec({"source": "inline", "A": A.tolist(), "b": b.tolist()})
        self.assertEqual(bits(x_ds), bits(x_in))
        again = self.upload(buf.getvalue())
        self.assertTrue(again["existed"])
        self.assertEqual(again["id"], ds["id"])

    def test_nan_and_infinities_are_refused_at_their_offset(self):
        for bad, word in ((np.nan, "NaN"), (np.inf, "inf"), (-np.inf, "-inf")):
            A = np.ones((4, 3))
            A[2, 1] = bad
            before = listing()
            with self.assertRaises(IrcgError) as cm:
                self.upload(_npy(A))
            e = cm.exception
            self.assertEqual(e.status, 422)
            self.assertIn("A[2, 1] is %s" % word, e.detail)
            self.assertEqual(e.problem()["offset"], 128 + 8 * (2 * 3 + 1))
            self.assertEqual(listing(), before)

    def test_every_format_of_the_users_libraries(self):
        """The same matrix written by NumPy, SciPy and scikit-learn in every
        format: the shapes the server reports, and the same answer (dense
        formats bit for bit; sparse ones to rounding of the sparse
        kernels)."""
        from sklearn.datasets import dump_svmlight_file
        g = rng(3)
        A = np.round(g.standard_normal((25, 6)), 3)
        A[A < 0.3] = 0.0
        b = np.round(g.standard_normal(25), 3)
        S = sp.csr_matrix(A)
        d = tempfile.mkdtemp()
        files = {}

        def path(name):
            files[name] = os.path.join(d, name)
            return files[name]
        np.save(path("c.npy"), A)
        np.save(path("f.npy"), np.asfortranarray(A))
        np.save(path("be.npy"), A.astype(">f8"))
        np.savez(path("z.npz"), A)
        np.savez_compressed(path("zc.npz"), A=A)
        np.savetxt(path("a.csv"), A, delimiter=",", fmt="%.17g")
        sp.save_npz(path("csr.npz"), S)
        sp.save_npz(path("csc.npz"), S.tocsc(), compressed=False)
        sp.save_npz(path("coo.npz"), S.tocoo())
        scipy.io.mmwrite(path("a.mtx"), S, precision=17)
        dump_svmlight_file(S, b, path("a.svm"), zero_based=False)  # LIBSVM's 1-based
        kinds = {"a.csv": {"kind": "matrix"}, "a.mtx": {"kind": "matrix"}}
        bd = self.upload(_npy(b))
        xs = {}
        for name, p in files.items():
            ds = self.upload(p, **kinds.get(name, {}))
            self.assertEqual((ds["kind"], ds["n_rows"], ds["n_cols"]), ("matrix", 25, 6), name)
            self.assertEqual(ds["sparse"], name in ("csr.npz", "csc.npz", "coo.npz", "a.mtx",
                                                    "a.svm"), name)
            data = {"source": "dataset", "id": ds["id"]}
            if name != "a.svm":  # a LIBSVM file's labels are its b
                data["b_id"] = bd["id"]
            else:
                self.assertTrue(ds["labels"])
            xs[name] = self.solve_spec(data)
        dense = ["c.npy", "f.npy", "be.npy", "z.npz", "zc.npz", "a.csv"]
        for name in dense:
            self.assertEqual(bits(xs[name]), bits(xs["c.npy"]), name)
        for name in ("csr.npz", "csc.npz", "coo.npz", "a.mtx", "a.svm"):
            np.testing.assert_allclose(xs[name], xs["c.npy"], rtol=1e-9, atol=1e-12,
                                       err_msg=name)

    def test_malformed_uploads_are_refused_and_nothing_is_kept(self):
        A = np.arange(12, dtype=float).reshape(4, 3) + 1
        good = _npy(A)
        z = io.BytesIO()
        np.savez(z, A)
        zb = bytearray(z.getvalue())
        zb[zb.index(b"\x93NUMPY") + 140] ^= 0xFF  # a value's byte: the CRC fails
        S = sp.csr_matrix(A)
        bad_ptr = io.BytesIO()
        with __import__("zipfile").ZipFile(bad_ptr, "w") as zf:
            for k, v in (("format", np.array(b"csr")), ("shape", np.array([4, 3])),
                         ("data", S.data), ("indices", S.indices),
                         ("indptr", np.array([0, 3, 2, 9, 12]))):
                m = io.BytesIO()
                np.save(m, v)
                zf.writestr(k + ".npy", m.getvalue())
        cases = [
            ("truncated npy", good[:150], {}, "offset"),
            ("int64 npy", _npy(np.arange(6).reshape(2, 3)), {}, None),
            ("npz with a damaged value", bytes(zb), {}, None),
            ("csr with decreasing pointers", bad_ptr.getvalue(), {}, "offset"),
            ("LIBSVM with a bad value", b"1 1:0.5 2:1\n-1 1:x\n", {}, "line"),
            ("Matrix Market with an entry beyond its size",
             b"%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.5\n",
             {"kind": "matrix"}, "line"),
            ("CSV with a short row", b"1,2,3\n4,5\n", {"kind": "matrix"}, "line"),
            ("CSV vector with inf", b"1\ninf\n", {"kind": "vector"}, "line"),
        ]
        for name, body, kw, where in cases:
            before = listing()
            with self.assertRaises(IrcgError, msg=name) as cm:
                self.upload(body, **kw)
            e = cm.exception
            self.assertEqual(e.status, 422, (name, e))
            if where:
                self.assertIn(where, e.problem(), (name, e.body))
                self.assertIn(where + " ", e.detail, name)
            self.assertEqual(listing(), before, name)  # no file, no temporary
            with self.assertRaises(IrcgError) as cm:
                self.c.dataset(hashlib.sha256(body).hexdigest())
            self.assertEqual(cm.exception.status, 404, name)

    def test_a_job_naming_a_missing_or_wrong_shaped_dataset_is_refused(self):
        A = rng(4).standard_normal((10, 3))
        a = self.upload(_npy(A))
        b9 = self.upload(_npy(np.ones(9)))
        av = self.upload(_npy(np.ones((5, 4))))
        spec = {"problem": {"type": "least_squares",
                            "data": {"source": "dataset", "id": a["id"], "b_id": b9["id"],
                                     "A_val_id": av["id"], "b_val": [1, 2, 3, 4, 5]},
                            "outer": "validation"}}
        with self.assertRaises(IrcgError) as cm:
            self.c.submit(spec)
        e = cm.exception
        self.assertEqual(e.status, 422)
        self.assertIn("9 values", e.reason("/problem/data/b_id"))
        self.assertIn("4 columns", e.reason("/problem/data/A_val_id"))
        spec["problem"]["data"] = {"source": "dataset", "id": "0" * 64, "b_id": a["id"]}
        with self.assertRaises(IrcgError) as cm:
            self.c.submit(spec)
        self.assertIn("no dataset", cm.exception.reason("/problem/data/id"))
        self.assertIn("not a vector", cm.exception.reason("/problem/data/b_id"))


def _npy(a):
    buf = io.BytesIO()
    np.save(buf, np.asarray(a))
    return buf.getvalue()


# ---------------------------------------------------------------- solving --

class Solve(Base):
    def test_arrays_in_arrays_out(self):
        """least_squares from NumPy with a validation split, solved in one
        call uploading its data; x and z bit for bit the result's, the
        certificate, the status, the trace as a DataFrame."""
        g = rng(5)
        A, Av = g.standard_normal((400, 30)), g.standard_normal((100, 30))
        w = g.standard_normal(30)
        # noise on the validation side: f* > 0, so the 200 iterations run
        # (an exact fit, f* = 0, is solved exactly and converges early)
        b, bv = A @ w, Av @ w + 0.1 * g.standard_normal(100)
        p = least_squares(A, b, domain="l2_ball", radius=30.0, A_val=Av, b_val=bv)
        self.assertGreater(p.numbers, 10000)
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            sol = self.c.solve(p, max_iter=200, progress=False, upload=True, step_rule="line_search")
        spec = self.c._call("GET", "/v1/jobs/%s/spec" % sol.id).json()
        self.assertEqual(spec["problem"]["data"]["source"], "dataset")
        self.assertEqual(spec["problem"]["outer"]["type"], "validation")
        res = self.c.result(sol.id)
        self.assertEqual(bits(sol.x), bits(res["x"]["values"]))
        self.assertEqual(bits(sol.z), bits(res["z"]["values"]))
        self.assertEqual(sol.status, "max_iter")
        self.assertEqual(sol.iterations, 200)
        self.assertLessEqual(sol.certificate["g_lower"], sol.certificate["g_x"])
        import pandas
        self.assertIsInstance(sol.trace, pandas.DataFrame)
        self.assertEqual(len(sol.trace), 200)
        # the same problem inline: the same answer
        sol2 = self.c.solve(p, max_iter=200, progress=False, upload=False,
                            step_rule="line_search")
        self.assertEqual(bits(sol2.x), bits(sol.x))

    def test_scipy_and_pandas_inputs(self):
        import pandas
        g = rng(6)
        X = sp.random(300, 20, density=0.3, random_state=7, format="csc")
        y = np.where(X @ g.standard_normal(20) > 0, 1.0, -1.0)
        s1 = self.c.solve(logistic_regression(X, y, radius=5.0), max_iter=50, progress=False,
                          upload=True)
        s2 = self.c.solve(logistic_regression(X.tocsr(), list(y), radius=5.0), max_iter=50,
                          progress=False, upload=False)
        self.assertEqual(bits(s1.x), bits(s2.x))
        df = pandas.DataFrame(X.toarray(), columns=["f%d" % i for i in range(20)])
        s3 = self.c.solve(least_squares(df, pandas.Series(y), radius=5.0), max_iter=30,
                          progress=False)
        self.assertEqual(len(s3.x), 20)

    def test_warnings_are_python_warnings(self):
        A = rng(7).standard_normal((50, 10))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sol = self.c.solve(least_squares(A, A @ np.ones(10), radius=100.0), max_iter=3,
                               progress=False)
        codes = [x.message.code for x in w if isinstance(x.message, IrcgWarning)]
        self.assertEqual(codes, [x["code"] for x in sol.warnings])
        self.assertIn("inner_unsolved", codes)

    def test_matrix_completion_low_rank_factors(self):
        """The factors (from ?x=npz) against X made here from the result's
        JSON; ratings from a SciPy matrix and from a DataFrame agree."""
        import pandas
        M = sp.random(30, 20, density=0.3, random_state=9, format="coo")
        M.data = np.round(1 + 4 * M.data)
        sol = self.c.solve(matrix_completion(M, delta=20.0), max_iter=15, progress=False)
        res = self.c.result(sol.id)
        X = _dense_from_json(res["x"])  # sums in another order: to rounding
        np.testing.assert_allclose(sol.x.dense(), X, rtol=1e-13, atol=1e-13)
        self.assertEqual(sol.x.dense().shape, (30, 20))
        df = pandas.DataFrame({"u": M.row + 1, "i": M.col + 1, "r": M.data})
        sol2 = self.c.solve(matrix_completion(df, delta=20.0, shape=(30, 20)), max_iter=15,
                            progress=False, upload=True)
        np.testing.assert_array_equal(sol2.x.dense(), sol.x.dense())

    def test_method_and_members_pass_through(self):
        A = rng(9).standard_normal((20, 5))
        p = least_squares(A, A @ np.ones(5), radius=10.0)
        with self.assertRaises(IrcgError) as cm:
            self.c.solve(p, method="no-such-method", progress=False)
        self.assertEqual(cm.exception.status, 422)
        self.assertIsNotNone(cm.exception.reason("/algorithm/name"))
        sol = self.c.solve(p, method="cgbio", max_iter=20, progress=False)
        self.assertEqual(sol.result["algorithm"], "cgbio")
        sol = self.c.solve(p, stop={"inner_gap_rel": 1e-3}, method="ircg", max_iter=100000,
                           progress=False, certify_every=16, step_rule="line_search")
        self.assertEqual(sol.status, "converged")
        self.assertIs(sol.answer, sol.x)
        # a stop without a method: auto's choice (fcbio: 20 rows, 5
        # unknowns -- two-stage takes fewer rows than unknowns), whose
        # answer is z
        sol = self.c.solve(p, stop={"inner_gap_rel": 1e-6, "outer_gap_rel": 1e-4},
                           progress=False)
        self.assertEqual((sol.status, sol.result["algorithm"]), ("converged", "fcbio"))
        self.assertIs(sol.answer, sol.z)
        inner, outer = sol.gaps
        self.assertEqual((inner, outer), (sol.certificate["inner_gap_z"],
                                          sol.certificate["outer_gap_z"]))

    def test_progress_bar_and_plain_lines(self):
        A = rng(10).standard_normal((20, 5))
        p = least_squares(A, A @ np.ones(5), radius=10.0)
        from ircg_client.progress import Progress
        from ircg_client.sse import Event
        for use_tqdm in (None, False):
            out = io.StringIO()
            bar = Progress(True, 100, "job", stream=out, use_tqdm=use_tqdm)
            bar(Event(1, "state", {"state": "running"}))
            for it in (1, 50, 100):
                bar(Event(it + 1, "progress", {"iteration": it, "g_x": 1.5, "f_x": 2.0,
                                               "gap": 0.25}))
            bar.close({"state": "succeeded", "progress": {"iteration": 100, "g_x": 1.0}})
            text = out.getvalue()
            self.assertIn("succeeded", text)
            if use_tqdm is None:
                self.assertIn("100/100", text)
            else:
                self.assertIn("iteration 1/100  g(x) 1.5  f(x) 2  gap 0.25", text)
                self.assertIn("iteration 100/100", text)
        sol = self.c.solve(p, max_iter=10, progress="lines")
        self.assertEqual(sol.status, "max_iter")

    def test_a_failed_job_raises(self):
        A = rng(11).standard_normal((20, 5))
        p = least_squares(A, A @ np.ones(5), radius=10.0)
        with self.assertRaises(JobFailed) as cm:
            self.c.solve(p, progress=False, start={"x0": [100.0] * 5})
        self.assertIn("x0", json.dumps(cm.exception.job.get("error")))

    def test_bad_values_are_refused_before_sending(self):
        A = np.ones((3, 2))
        A[1, 1] = np.nan
        with self.assertRaises(ValueError) as cm:
            least_squares(A, [1, 2, 3])
        self.assertIn("A[1, 1]", str(cm.exception))


def _dense_from_json(it):
    """X = a0 X0 + P diag(w) Q' from a factored iterate's JSON, here."""
    n, p = it["n_rows"], it["n_cols"]
    X = np.zeros((n, p))
    d = it["x0_diag"]
    diag = np.full(min(n, p), d["value"]) if "value" in d else np.asarray(d["values"])
    X[np.arange(min(n, p)), np.arange(min(n, p))] = it["a0"] * diag
    rows = it.get("rows", list(range(n)))
    cols = it.get("cols", list(range(p)))
    for k in range(it["rank"]):
        Pk = np.full(n, it["P_other"][k] if "P_other" in it else 0.0)
        Pk[rows] = it["P"][k]
        Qk = np.zeros(p)
        Qk[cols] = it["Q"][k]
        X += it["w"][k] * np.outer(Pk, Qk)
    return X


# ------------------------------------------------------------- estimators --

# The checks scikit-learn runs for its own LinearRegression and
# LogisticRegression that it does not run for these estimators, and why.
NOT_APPLICABLE = {
    "check_regressor_multioutput": "one target: the inner problem fits one vector b",
    "check_class_weight_classifiers": "no class_weight: the logistic loss's terms are not "
                                      "weighted",
    "check_sparsify_coefficients": "no sparsify(): coef_ is the service's iterate as it is",
    "check_sample_weights_invariance": "fit takes no sample_weight: g is the unweighted sum of "
                                       "the rows' losses",
    "check_sample_weights_list": "fit takes no sample_weight",
    "check_sample_weights_not_an_array": "fit takes no sample_weight",
    "check_sample_weights_not_overwritten": "fit takes no sample_weight",
    "check_sample_weights_pandas_series": "fit takes no sample_weight",
    "check_sample_weights_shape": "fit takes no sample_weight",
}
# Run, but only in their binary form (the multiclass parts return
# early): BilevelLogisticRegression is binary (labels -1/+1).
BINARY_ONLY = "two classes only: the service's logistic regression has labels -1/+1"


class Estimators(Base):
    def names(self, est):
        from sklearn.utils.estimator_checks import check_estimator
        return {getattr(c, "func", c).__name__
                for _, c in check_estimator(est, generate_only=True)}

    def run_checks(self, est, reference):
        from sklearn.utils.estimator_checks import check_estimator
        missing = self.names(reference) - self.names(est)
        unexplained = missing - set(NOT_APPLICABLE)
        self.assertEqual(unexplained, set(), "checks not run, without a reason")
        for name in sorted(missing):
            print("  not applicable: %s: %s" % (name, NOT_APPLICABLE[name]))
        ran = 0
        with warnings.catch_warnings():
            # the results of short solves warn (inner_unsolved): expected here
            warnings.simplefilter("ignore", IrcgWarning)
            for e, check in check_estimator(est, generate_only=True):
                name = getattr(check, "func", check).__name__
                with self.subTest(check=name):
                    check(e)
                ran += 1
        print("  %s: %d checks run" % (type(est).__name__, ran))
        return ran

    def test_check_estimator_regressor(self):
        from sklearn.linear_model import LinearRegression
        from ircg_client.sklearn import BilevelRegressor
        self.assertGreater(self.run_checks(BilevelRegressor(url=URL), LinearRegression()), 30)

    def test_check_estimator_logistic(self):
        from sklearn.linear_model import LogisticRegression
        from ircg_client.sklearn import BilevelLogisticRegression
        print("  binary only: %s" % BINARY_ONLY)
        est = BilevelLogisticRegression(url=URL)
        self.assertTrue(est._get_tags()["binary_only"])
        self.assertGreater(self.run_checks(est, LogisticRegression()), 30)

    def test_regressor_finds_least_squares_and_uses_validation(self):
        from ircg_client.sklearn import BilevelRegressor
        g = rng(12)
        X = g.standard_normal((200, 6))
        y = X @ np.arange(1.0, 7.0) + 3.0
        est = BilevelRegressor(url=URL, radius=50.0, max_iter=2000).fit(X, y)
        # an independent answer: NumPy's least squares with an intercept;
        # g = 1/2 ||Xc w - yc||^2 (centered) is strongly convex with
        # lambda_min(Xc'Xc), so the certified g(w) - g* <= gap puts w within
        # sqrt(2 gap / lambda_min) of the minimizer
        ref, *_ = np.linalg.lstsq(np.hstack([X, np.ones((200, 1))]), y, rcond=None)
        Xc = X - X.mean(axis=0)
        lam = np.linalg.eigvalsh(Xc.T @ Xc)[0]
        gap = est.certificate_["inner_gap_x"]
        dist = np.linalg.norm(est.coef_ - ref[:6])
        print("  |coef - lstsq| = %.3g <= sqrt(2 gap / lambda_min) = %.3g"
              % (dist, np.sqrt(2 * gap / lam)))
        self.assertLessEqual(dist, np.sqrt(2 * gap / lam) * (1 + 1e-9))
        self.assertLess(dist, 0.05)
        self.assertAlmostEqual(est.intercept_, y.mean() - X.mean(axis=0) @ est.coef_, delta=1e-12)
        Xv = g.standard_normal((50, 6))
        est2 = BilevelRegressor(url=URL, radius=50.0, max_iter=50).fit(
            X, y, X_val=Xv, y_val=Xv @ np.arange(1.0, 7.0) + 3.0)
        spec = self.c._call("GET", "/v1/jobs/%s/spec" % est2.job_id_).json()
        self.assertEqual(spec["problem"]["outer"]["type"], "validation")


class Readme(Base):
    def test_readme_numpy_example(self):
        """clients/README.md's NumPy example runs as written and prints
        what the README says (converged, x of 50, a gap)."""
        with open(os.path.join(HERE, "..", "..", "..", "clients", "README.md")) as f:
            text = f.read()
        part = text.split("### Data as users hold it", 1)[1]
        code = part.split("```python\n", 1)[1].split("```", 1)[0]
        code = code.replace('"http://127.0.0.1:8080"', repr(URL))
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=300, env=dict(os.environ, PYTHONPATH=CLIENT_DIR))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("converged (50,) "), p.stdout)
        self.assertIn("prints `converged (50,) ...`", part)


# --------------------------------------------------- without the libraries --

BLOCK = r"""
import sys, importlib.abc
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("numpy", "scipy", "pandas", "tqdm", "sklearn"):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
"""

STDLIB = BLOCK + r"""
import io, json, os, sys, warnings
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore")
from ircg_client import Client, least_squares, matrix_completion
from ircg_client.npyio import read_npz
c = Client(sys.argv[2])
A = [[1.0, 2.0, 0.5], [0.0, 1.0, -1.0], [2.0, 0.0, 1.0], [1.0, 1.0, 1.0]]
b = [1.0, 2.0, 3.0, 4.0]
out = {}
for up in (False, True):
    s = c.solve(least_squares(A, b, radius=5.0), max_iter=40, progress="lines", upload=up)
    out["x_%s" % up] = s.x
    out["trace"] = type(s.trace).__name__
r = c.result(s.id)
out["json_x"] = r["x"]["values"]
m = c.solve(matrix_completion([(1, 1, 5.0), (1, 2, 3.0), (2, 2, 4.0)], delta=5.0),
            max_iter=5, progress=False)
out["dense"] = m.x.dense()
out["json_mc"] = c.result(m.id)["x"]
print(json.dumps(out))
"""


class WithoutTheLibraries(Base):
    def test_standard_library_client(self):
        """NumPy & co. blocked: lists in, lists out, uploads packed by the
        array module; the same answers as the result's JSON."""
        p = subprocess.run([sys.executable, "-c", STDLIB, CLIENT_DIR, URL],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = json.loads(p.stdout)
        self.assertEqual(out["x_False"], out["json_x"])
        self.assertEqual(out["x_True"], out["json_x"])
        self.assertEqual(out["trace"], "list")
        self.assertIn("iteration", p.stderr)  # the plain progress lines
        X = _dense_from_json(out["json_mc"])
        np.testing.assert_allclose(out["dense"], X, rtol=1e-13, atol=1e-13)
        p = subprocess.run([sys.executable, "-c", BLOCK + "import ircg_client.sklearn"],
                           capture_output=True, text=True, cwd=CLIENT_DIR)
        self.assertNotEqual(p.returncode, 0)  # the estimators need scikit-learn


if __name__ == "__main__":
    unittest.main(verbosity=2)
