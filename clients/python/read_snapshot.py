#!/usr/bin/env python3
"""read_snapshot.py -- read an ircg iterate snapshot with the Python
standard library alone (no NumPy, no ircg code).

An 'x' or 'z' snapshot (GET /v1/jobs/{id}/snapshots/{iteration}/x) is a
NumPy .npz file: a ZIP archive of .npy arrays (api/SPEC.md, "Snapshots").
With NumPy it is simply numpy.load(path); this file shows that it needs
nothing but zipfile, ast and array:

    snap = load("x.npz")                # {"w": Array, "P": Array, ...}
    X = dense(snap)                     # matrix completion: rows of X
    snap["P"][i, k], snap["w"][k]       # one value

Command line:

    read_snapshot.py FILE.npz           # a summary (JSON)
    read_snapshot.py FILE.npz --arrays  # every array, as JSON
    read_snapshot.py FILE.npz --dense   # X (or x) itself, as JSON rows
"""
import array
import ast
import io
import json
import sys
import zipfile


class Array:
    """An .npy array: shape, the values in file order, and the order."""

    def __init__(self, shape, values, fortran):
        self.shape, self.values, self.fortran = shape, values, fortran

    def __getitem__(self, index):
        if not isinstance(index, tuple):
            index = (index,)
        if len(index) != len(self.shape):
            raise IndexError("%d indices for %d dimensions" % (len(index), len(self.shape)))
        if not index:
            return self.values[0]
        if len(index) == 1:
            return self.values[index[0]]
        (i, j), (rows, cols) = index, self.shape
        return self.values[j * rows + i] if self.fortran else self.values[i * cols + j]

    def tolist(self):
        """Nested lists as NumPy's tolist() gives them."""
        if not self.shape:
            return self.values[0]
        if len(self.shape) == 1:
            return list(self.values)
        return [[self[i, j] for j in range(self.shape[1])] for i in range(self.shape[0])]


def read_npy(data):
    """One .npy file (bytes) -> Array.  Versions 1.0 to 3.0; 8-byte
    little- or big-endian floats and integers, as ircg writes them."""
    if data[:6] != b"\x93NUMPY":
        raise ValueError("not an .npy array")
    major = data[6]
    if major == 1:
        hlen, start = int.from_bytes(data[8:10], "little"), 10
    else:
        hlen, start = int.from_bytes(data[8:12], "little"), 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    descr, shape = header["descr"], tuple(header["shape"])
    if descr[1:] not in ("f8", "i8"):
        raise ValueError("unsupported dtype %r" % descr)
    count = 1
    for d in shape:
        count *= d
    values = array.array("d" if descr[1] == "f" else "q")
    body = start + hlen
    values.frombytes(data[body:body + 8 * count])
    if (descr[0] == "<") != (sys.byteorder == "little"):
        values.byteswap()
    if len(values) != count:
        raise ValueError("truncated array")
    return Array(shape, values, header["fortran_order"])


VECTOR_PROBLEMS = {1: "least_squares", 2: "logistic_regression"}


def load(source):
    """A snapshot (path, bytes or file object) -> {name: Array}."""
    if isinstance(source, (bytes, bytearray)):
        source = io.BytesIO(source)
    with zipfile.ZipFile(source) as z:
        return {n[:-4]: read_npy(z.read(n)) for n in z.namelist() if n.endswith(".npy")}


def dense(snap):
    """The iterate itself: least squares and logistic regression, the
    vector x; matrix completion, the rows of X = a0 X0 + P diag(w) Q' (X0
    diagonal: x0_diag).  A problem compacted by the solver (rows and
    columns without ratings) lists the rows of X that P's rows are
    ("rows"), the columns that Q's rows are ("cols"); every other row of
    P is "P_other" (or zero), every other row of Q zero."""
    if snap["problem"][()] != 0:
        return list(snap["x"].values)
    n, p = snap["shape"].values
    a0, d, w, P, Q = snap["a0"][()], snap["x0_diag"], snap["w"], snap["P"], snap["Q"]
    rows = list(snap["rows"].values) if "rows" in snap else list(range(n))
    cols = list(snap["cols"].values) if "cols" in snap else list(range(p))
    other = snap.get("P_other")
    X = [[0.0] * p for _ in range(n)]
    for i in range(min(n, p)):
        X[i][i] = a0 * d[i]
    for k in range(w.shape[0]):
        Pk = [other[k] if other is not None else 0.0] * n
        for r, i in enumerate(rows):
            Pk[i] = P[r, k]
        for i in range(n):
            pik = w[k] * Pk[i]
            row = X[i]
            for c, j in enumerate(cols):
                row[j] += pik * Q[c, k]
    return X


def summary(snap):
    out = {"format": snap["ircg_format"][()], "arrays": sorted(snap)}
    kind = snap["problem"][()]
    if kind != 0:
        out.update(problem=VECTOR_PROBLEMS.get(kind, f"problem {kind}"), n=snap["x"].shape[0])
    else:
        n, p = snap["shape"].values
        out.update(problem="matrix_completion", n_rows=n, n_cols=p,
                   rank=snap["w"].shape[0], a0=snap["a0"][()])
    return out


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        sys.stderr.write(__doc__)
        return 64
    snap = load(argv[1])
    if "--dense" in argv:
        print(json.dumps(dense(snap)))
    elif "--arrays" in argv:
        print(json.dumps({k: v.tolist() for k, v in snap.items()}))
    else:
        print(json.dumps(summary(snap)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
