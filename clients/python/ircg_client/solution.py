"""What Client.solve returns: the iterates as arrays (matrix completion's
as low-rank factors), the certificate, the status, the warnings (raised
as Python warnings too) and the trace."""

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from .errors import IrcgError
from .npyio import optional_numpy

if TYPE_CHECKING:
    from .client import Client


class IrcgWarning(UserWarning):
    """A result that is not what it seems (api/SPEC.md, Results:
    "warnings"): code is inner_unsolved, outer_unsolved, uncertified, loose
    or below_optimum."""

    def __init__(self, code: str, message: str):
        super().__init__("%s: %s" % (code, message))
        self.code = code


class JobFailed(IrcgError):
    """The job failed: its error (a problem document) in title, detail
    and errors; job is its resource."""

    def __init__(self, message: str, job: Dict[str, Any], **kw: Any):
        super().__init__(message, **kw)
        self.job = job


def _value(a: Any, *index: int) -> float:
    return float(a[index] if len(index) > 1 else a[index[0]])


class LowRank:
    """A matrix completion iterate X = a0 X0 + P diag(w) Q' as the solver
    holds it: never the n_rows x n_cols matrix unless dense() is asked.
    P's rows are the rows of X listed in `rows` (None: every row; the
    others are P_other, or zero), Q's the columns listed in `cols`."""

    def __init__(self, arrays: Dict[str, Any]):
        self.shape = tuple(int(v) for v in _tolist(arrays["shape"]))
        self.a0 = float(_scalar(arrays["a0"]))
        self.x0_diag = arrays["x0_diag"]
        self.w = arrays["w"]
        self.P = arrays["P"]
        self.Q = arrays["Q"]
        self.rows = arrays.get("rows")
        self.cols = arrays.get("cols")
        self.P_other = arrays.get("P_other")

    @property
    def rank(self) -> int:
        return len(_tolist(self.w))

    def dense(self) -> Any:
        """X itself: a NumPy array with NumPy, else rows of floats."""
        np = optional_numpy()
        n, p = self.shape
        if np is not None:
            X = np.zeros((n, p))
            d = np.asarray(self.x0_diag, dtype=float)
            m0 = min(n, p)
            X[np.arange(m0), np.arange(m0)] = self.a0 * d
            P = np.zeros((n, self.rank))
            if self.P_other is not None:
                P[:] = np.asarray(self.P_other)
            rows = np.arange(n) if self.rows is None else np.asarray(self.rows)
            P[rows] = np.asarray(self.P).reshape(len(rows), self.rank)
            Q = np.zeros((p, self.rank))
            cols = np.arange(p) if self.cols is None else np.asarray(self.cols)
            Q[cols] = np.asarray(self.Q).reshape(len(cols), self.rank)
            return X + (P * np.asarray(self.w)) @ Q.T
        X = [[0.0] * p for _ in range(n)]
        d = _tolist(self.x0_diag)
        for i in range(min(n, p)):
            X[i][i] = self.a0 * d[i]
        w = _tolist(self.w)
        rows = list(range(n)) if self.rows is None else [int(v) for v in _tolist(self.rows)]
        cols = list(range(p)) if self.cols is None else [int(v) for v in _tolist(self.cols)]
        other = _tolist(self.P_other) if self.P_other is not None else None
        for k in range(len(w)):
            Pk = [other[k] if other is not None else 0.0] * n
            for r, i in enumerate(rows):
                Pk[i] = _value(self.P, r, k)
            for i in range(n):
                pik = w[k] * Pk[i]
                for c, j in enumerate(cols):
                    X[i][j] += pik * _value(self.Q, c, k)
        return X

    def __array__(self, dtype: Any = None) -> Any:
        np = optional_numpy()
        X = self.dense()
        return X if dtype is None else np.asarray(X, dtype=dtype)

    def __repr__(self) -> str:
        return "LowRank(shape=%r, rank=%d)" % (self.shape, self.rank)


def _tolist(a: Any) -> List[Any]:
    if hasattr(a, "tolist"):
        t = a.tolist()
        return t if isinstance(t, list) else [t]
    return list(a)


def _scalar(a: Any) -> Any:
    return a[()] if hasattr(a, "shape") and a.shape == () else _tolist(a)[0]


class Solution:
    """A finished job's answer.

    x, z       the iterates: NumPy arrays (lists without NumPy), or for
               matrix completion LowRank factors (.dense() for X)
    answer     the one the certificate's stop and warnings are of: z for
               the bisection methods and the two-stage method (fcbio,
               fcbio-cg, two-stage; auto's choice for most problems),
               else x
    gaps       (inner, outer): the answer's certified g(y) - g* and
               f(y) - f*, (nan, nan) without a certificate
    status     the solver's: converged, max_iter, time_limit, cancelled, ...
    certificate  the certified bounds (g(x) - g* <= inner_gap_x,
               f(x) - f* <= outer_gap_x, ...), None without one
    warnings   [{"code", "message"}]; each was raised as an IrcgWarning
    trace      every row of the trace: a pandas DataFrame with pandas
               (fetched when first read), else a list of dicts
    result     the result document; job the job resource; id the job's id
    """

    def __init__(self, client: "Client", job: Dict[str, Any], result: Dict[str, Any],
                 x: Any, z: Any):
        self._client = client
        self._trace: Optional[Any] = None
        self.job = job
        self.id: str = job["id"]
        self.state: str = job.get("state", "")
        self.result = result
        self.x = x
        self.z = z
        self.status: str = result.get("status", "")
        self.certificate: Optional[Dict[str, Any]] = result.get("certificate")
        self.warnings: List[Dict[str, str]] = list(result.get("warnings") or [])
        self.iterations: int = int(result.get("iterations") or 0)

    @property
    def answer(self) -> Any:
        cert = self.certificate or {}
        return self.z if cert.get("answer") == "z" and self.z is not None else self.x

    @property
    def gaps(self) -> Tuple[float, float]:
        if not self.certificate:
            return (float("nan"), float("nan"))
        from .client import Client
        return Client.answer_gaps(self.certificate)

    @property
    def trace(self) -> Any:
        if self._trace is None:
            self._trace = self._client.trace(self.id)
        return self._trace

    def __getitem__(self, key: str) -> Any:
        """A member of the result ("g_x", "f_z", "solve_seconds", ...)."""
        return self.result[key]

    def __repr__(self) -> str:
        return "Solution(%s, %s after %d iterations)" % (self.id, self.status, self.iterations)
