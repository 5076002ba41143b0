"""Problems built from the data as users hold it: NumPy arrays, SciPy
sparse matrices, pandas objects, or plain lists.

    p = least_squares(A, b, domain="l1_ball", radius=10.0,
                      A_val=A2, b_val=b2)               # outer: validation
    p = logistic_regression(X, y, domain="l2_ball", radius=5.0)
    p = matrix_completion(ratings, delta=5.0)           # (user, item, rating)

A problem holds its arrays, checked here (every value finite, the shapes
agreeing), and the members of its spec; Client.solve sends small arrays
inline and uploads large ones as datasets (POST /v1/datasets), then names
them in the spec."""

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .npyio import dense_npy, flat_floats, optional_numpy, scipy_npz

# The spec's bound on data values (api/SPEC.md, "Limits").
MAX_VALUE = 1e30


def _where(shape: Tuple[int, ...], k: int) -> str:
    if len(shape) == 1:
        return "[%d]" % k
    return "[%d, %d]" % (k // shape[1], k % shape[1])


def _check_values(name: str, values: Any, shape: Tuple[int, ...]) -> None:
    """Every value finite and |v| <= 1e30 (what the server refuses)."""
    np = optional_numpy()
    if np is not None and hasattr(values, "dtype"):
        bad = ~np.isfinite(values) | (np.abs(values) > MAX_VALUE)
        if bad.any():
            k = int(np.flatnonzero(bad.ravel())[0])
            v = values.ravel()[k]
            raise ValueError("%s%s is %r: values must be finite, |v| <= 1e30"
                             % (name, _where(shape, k), float(v)))
        return
    for k, v in enumerate(values):
        if not (math.isfinite(v) and abs(v) <= MAX_VALUE):
            raise ValueError("%s%s is %r: values must be finite, |v| <= 1e30"
                             % (name, _where(shape, k), v))


def _is_sparse(x: Any) -> bool:
    return hasattr(x, "tocsr") and hasattr(x, "nnz") and hasattr(x, "format")


class Matrix:
    """A matrix: dense (a C-contiguous float64 NumPy array, or rows of
    floats) or CSR (SciPy), with what it costs inline."""

    def __init__(self, name: str, data: Any):
        self.name = name
        np = optional_numpy()
        if _is_sparse(data):
            csr = data.tocsr().astype(np.float64)
            csr.sort_indices()
            self.kind, self.value = "csr", csr
            self.shape = (int(csr.shape[0]), int(csr.shape[1]))
            self.numbers = 2 * int(csr.nnz) + self.shape[0] + 1
            _check_values(name + ".data", csr.data, (int(csr.nnz),))
        elif np is not None and not isinstance(data, (list, tuple)):
            if hasattr(data, "to_numpy"):  # pandas
                data = data.to_numpy(dtype=np.float64)
            a = np.ascontiguousarray(np.asarray(data, dtype=np.float64))
            if a.ndim != 2:
                raise ValueError("%s must be 2-D, got shape %r" % (name, a.shape))
            self.kind, self.value, self.shape = "dense", a, (int(a.shape[0]), int(a.shape[1]))
            self.numbers = a.size
            _check_values(name, a, self.shape)
        else:
            rows = [flat_floats(r) for r in data]
            width = len(rows[0]) if rows else 0
            if not rows or any(len(r) != width for r in rows) or width == 0:
                raise ValueError("%s must be a non-empty list of rows of equal length" % name)
            self.kind, self.value, self.shape = "dense", rows, (len(rows), width)
            self.numbers = len(rows) * width
            for i, r in enumerate(rows):
                _check_values("%s[%d]" % (name, i), r, (width,))
        if 0 in self.shape:
            raise ValueError("%s is empty: shape %r" % (name, self.shape))

    def inline(self) -> Any:
        """The spec's inline form: rows, or {"format": "csr", ...}."""
        if self.kind == "csr":
            c = self.value
            return {"format": "csr", "rowptr": [int(v) for v in c.indptr],
                    "colind": [int(v) for v in c.indices],
                    "values": [float(v) for v in c.data]}
        return self.value.tolist() if hasattr(self.value, "tolist") else self.value

    def upload_body(self) -> Tuple[int, Any, str]:
        """(length, chunks, format) of the dataset to upload."""
        if self.kind == "csr":
            c = self.value
            body = scipy_npz("csr", self.shape, [("data", c.data), ("indices", c.indices),
                                                 ("indptr", c.indptr)])
            return len(body), iter([body]), "npz"
        n, chunks = dense_npy(self.value, self.shape)
        return n, chunks, "npy"


class Vector:
    """A vector of floats: a 1-D float64 NumPy array, or a list."""

    def __init__(self, name: str, data: Any):
        self.name = name
        np = optional_numpy()
        if np is not None and not isinstance(data, (list, tuple)):
            if hasattr(data, "to_numpy"):  # pandas Series (or a one-column frame)
                data = data.to_numpy(dtype=np.float64)
            a = np.ascontiguousarray(np.asarray(data, dtype=np.float64))
            if a.ndim == 2 and 1 in a.shape:
                a = np.ascontiguousarray(a.ravel())
            if a.ndim != 1:
                raise ValueError("%s must be 1-D, got shape %r" % (name, a.shape))
            self.value = a
        else:
            self.value = flat_floats(data)
        self.shape = (len(self.value),)
        self.numbers = len(self.value)
        if not self.numbers:
            raise ValueError("%s is empty" % name)
        _check_values(name, self.value, self.shape)

    def inline(self) -> List[float]:
        return self.value.tolist() if hasattr(self.value, "tolist") else list(self.value)

    def upload_body(self) -> Tuple[int, Any, str]:
        n, chunks = dense_npy(self.value, self.shape)
        return n, chunks, "npy"


def _domain(domain: Any, radius: Optional[float], lower: Optional[float],
            upper: Optional[float]) -> Dict[str, Any]:
    if isinstance(domain, dict):
        return dict(domain)
    d: Dict[str, Any] = {"type": domain}
    if domain == "box":
        if lower is not None:
            d["lower"] = float(lower)
        if upper is not None:
            d["upper"] = float(upper)
    elif radius is not None:
        d["radius"] = float(radius)
    return d


def _listed(v: Any) -> Any:
    """NumPy arrays in an outer objective (c, Q, q) as lists."""
    return v.tolist() if hasattr(v, "tolist") else v


class Problem:
    """A problem ready for Client.solve: its type, its model members
    (domain, outer, delta) and its arrays."""

    def __init__(self, type: str, arrays: Dict[str, Any], members: Dict[str, Any]):
        self.type = type
        self.arrays = arrays        # spec member -> Matrix / Vector / Ratings
        self.members = members      # domain, outer, delta, ...

    @property
    def numbers(self) -> int:
        """How many numbers its data holds (what inline JSON would carry)."""
        return sum(a.numbers for a in self.arrays.values())

    def __repr__(self) -> str:
        shapes = ", ".join("%s %s" % (k, "x".join(map(str, a.shape)))
                           for k, a in self.arrays.items())
        return "Problem(%s: %s)" % (self.type, shapes)

    def data_inline(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {"source": "inline"}
        for k, a in self.arrays.items():
            d.update(a.inline_member(k) if hasattr(a, "inline_member") else {k: a.inline()})
        return d


# The spec's members of the uploaded data: A -> id, b -> b_id, ...
DATASET_MEMBER = {"A": "id", "b": "b_id", "A_val": "A_val_id", "b_val": "b_val_id",
                  "ratings": "id"}
DATASET_KIND = {"A": "matrix", "b": "vector", "A_val": "matrix", "b_val": "vector",
                "ratings": "ratings"}


def _regression(type: str, A: Any, b: Any, domain: Any, radius: Optional[float],
                lower: Optional[float], upper: Optional[float], outer: Any,
                A_val: Any, b_val: Any) -> Problem:
    arrays: Dict[str, Any] = {"A": Matrix("A", A), "b": Vector("b", b)}
    if arrays["b"].shape[0] != arrays["A"].shape[0]:
        raise ValueError("b has %d values, A has %d rows"
                         % (arrays["b"].shape[0], arrays["A"].shape[0]))
    if (A_val is None) != (b_val is None):
        raise ValueError("validation rows come with both A_val and b_val")
    if A_val is not None:
        arrays["A_val"] = Matrix("A_val", A_val)
        arrays["b_val"] = Vector("b_val", b_val)
        if arrays["A_val"].shape[1] != arrays["A"].shape[1]:
            raise ValueError("A_val has %d columns, A has %d"
                             % (arrays["A_val"].shape[1], arrays["A"].shape[1]))
        if arrays["b_val"].shape[0] != arrays["A_val"].shape[0]:
            raise ValueError("b_val has %d values, A_val has %d rows"
                             % (arrays["b_val"].shape[0], arrays["A_val"].shape[0]))
    members: Dict[str, Any] = {"domain": _domain(domain, radius, lower, upper)}
    if outer is None and A_val is not None:
        outer = "validation"
    if isinstance(outer, dict):
        outer = {k: _listed(v) for k, v in outer.items()}
    if outer is not None:
        members["outer"] = outer
    return Problem(type, arrays, members)


def least_squares(A: Any, b: Any, domain: Any = "l2_ball", radius: Optional[float] = 1.0,
                  outer: Any = None, A_val: Any = None, b_val: Any = None,
                  lower: Optional[float] = None, upper: Optional[float] = None) -> Problem:
    """min f(x) s.t. x in argmin 1/2 ||A x - b||^2 over the domain.
    domain: "l2_ball", "l1_ball", "simplex" (with radius) or "box" (with
    lower, upper), or the spec's dict; outer: "half_norm_sq" (the
    default), "validation" (the default with A_val and b_val: 1/2 ||A_val
    x - b_val||^2), or the spec's dict ({"type": "dist_sq", "c": c},
    {"type": "quadratic", "Q": Q, "q": q}).  A: a NumPy array, a SciPy
    sparse matrix, a pandas DataFrame or rows of numbers; b: a 1-D array,
    a pandas Series or a list."""
    return _regression("least_squares", A, b, domain, radius, lower, upper, outer, A_val,
                       b_val)


def logistic_regression(A: Any, y: Any, domain: Any = "l2_ball",
                        radius: Optional[float] = 1.0, outer: Any = None, A_val: Any = None,
                        y_val: Any = None, lower: Optional[float] = None,
                        upper: Optional[float] = None) -> Problem:
    """min f(x) s.t. x in argmin sum_i log(1 + exp(-y_i a_i'x)) over the
    domain; labels y all -1/+1 or all 0/1.  Members as least_squares'."""
    return _regression("logistic_regression", A, y, domain, radius, lower, upper, outer,
                       A_val, y_val)


class Ratings:
    """Observed entries (1-based user and item ids, ratings) of an
    n_rows x n_cols matrix."""

    def __init__(self, users: Sequence[int], items: Sequence[int], values: Sequence[float],
                 shape: Optional[Tuple[int, int]]):
        self.users, self.items, self.values = users, items, values
        nr = max(users) if len(users) else 0
        nc = max(items) if len(items) else 0
        if shape is not None:
            if shape[0] < nr or shape[1] < nc:
                raise ValueError("an id lies beyond the shape %r" % (shape,))
            nr, nc = shape
        self.shape = (int(nr), int(nc))
        self.numbers = 3 * len(values)
        if not len(values):
            raise ValueError("no ratings")
        _check_values("ratings", values, (len(values),))

    def inline_member(self, key: str) -> Dict[str, Any]:
        return {"ratings": [[int(u), int(i), float(r)]
                            for u, i, r in zip(self.users, self.items, self.values)],
                "n_rows": self.shape[0], "n_cols": self.shape[1]}

    def upload_body(self) -> Tuple[int, Any, str]:
        """A Matrix Market coordinate file: its size line keeps the shape."""
        lines = ["%%MatrixMarket matrix coordinate real general\n",
                 "%d %d %d\n" % (self.shape[0], self.shape[1], len(self.values))]
        lines.extend("%d %d %r\n" % (int(u), int(i), float(r))
                     for u, i, r in zip(self.users, self.items, self.values))
        body = "".join(lines).encode("ascii")
        return len(body), iter([body]), "matrix_market"


def matrix_completion(ratings: Any, delta: float = 5.0, shape: Optional[Tuple[int, int]] = None,
                      outer: str = "column_variance") -> Problem:
    """Matrix completion over the nuclear ball of radius delta (the
    paper's Section 4).  ratings: (user, item, rating) rows with 1-based
    ids (a NumPy array of 3 columns, a pandas DataFrame whose first three
    columns are those, or a list of triples), or a SciPy sparse matrix
    whose stored entries are the ratings (its shape is the shape)."""
    np = optional_numpy()
    if _is_sparse(ratings):
        coo = ratings.tocoo()
        users, items, values = coo.row + 1, coo.col + 1, coo.data.astype(np.float64)
        shape = shape or (int(coo.shape[0]), int(coo.shape[1]))
    else:
        if hasattr(ratings, "to_numpy"):
            ratings = ratings.iloc[:, :3].to_numpy()
        if np is not None and not isinstance(ratings, (list, tuple)):
            a = np.asarray(ratings)
            if a.ndim != 2 or a.shape[1] < 3:
                raise ValueError("ratings must be rows of (user, item, rating)")
            users, items = a[:, 0].astype(np.int64), a[:, 1].astype(np.int64)
            values = a[:, 2].astype(np.float64)
        else:
            rows = [tuple(r) for r in ratings]
            users = [int(r[0]) for r in rows]
            items = [int(r[1]) for r in rows]
            values = [float(r[2]) for r in rows]
    if len(users) and (min(users) < 1 or min(items) < 1):
        raise ValueError("user and item ids are 1-based")
    r = Ratings(users, items, values, shape)
    return Problem("matrix_completion", {"ratings": r},
                   {"delta": float(delta), "outer": outer})
