"""NumPy's .npy and .npz formats with the standard library alone: what
the client uploads (a matrix or a vector as .npy, a sparse matrix as
SciPy's .npz layout) and what it downloads (a result's iterates as .npz,
api/SPEC.md "Snapshots").  With NumPy installed the arrays are NumPy's;
without it, array.array('d') values with a shape."""

import array
import ast
import io
import struct
import sys
import zipfile
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

ALIGN = 64


def npy_header(descr: str, shape: Tuple[int, ...], fortran: bool = False) -> bytes:
    """The .npy 1.0 header of an array (magic, version, length, dict),
    padded so that its values start at a multiple of 64 bytes."""
    if len(shape) == 1:
        shp = "(%d,)" % shape[0]
    else:
        shp = "(" + ", ".join(str(int(d)) for d in shape) + ")"
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shp)
    total = 10 + len(d) + 1
    total = (total + ALIGN - 1) // ALIGN * ALIGN
    text = d + " " * (total - 10 - len(d) - 1) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin1")


LITTLE = sys.byteorder == "little"


def f8_descr() -> str:
    return "<f8" if LITTLE else ">f8"


class Array:
    """An .npy array without NumPy: its shape, values in file order
    (array.array), and whether that order is Fortran's."""

    def __init__(self, shape: Tuple[int, ...], values: Any, fortran: bool):
        self.shape, self.values, self.fortran = shape, values, fortran

    def __getitem__(self, index: Any) -> Any:
        if not isinstance(index, tuple):
            index = (index,)
        if not index:
            return self.values[0]
        if len(index) == 1:
            return self.values[index[0]]
        (i, j), (rows, cols) = index, self.shape
        return self.values[j * rows + i] if self.fortran else self.values[i * cols + j]

    def tolist(self) -> Any:
        if not self.shape:
            return self.values[0]
        if len(self.shape) == 1:
            return list(self.values)
        return [[self[i, j] for j in range(self.shape[1])] for i in range(self.shape[0])]

    def __len__(self) -> int:
        return self.shape[0] if self.shape else 1

    def __repr__(self) -> str:
        return "Array(shape=%r)" % (self.shape,)


def read_npy(data: bytes) -> Any:
    """One .npy (bytes): a NumPy array when NumPy is installed, else an
    Array (8-byte floats and integers)."""
    try:
        import numpy  # type: ignore[import-not-found]  # optional
    except ImportError:
        numpy = None
    if numpy is not None:
        return numpy.load(io.BytesIO(data), allow_pickle=False)
    if data[:6] != b"\x93NUMPY":
        raise ValueError("not an .npy array")
    if data[6] == 1:
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
    if (descr[0] == "<") != LITTLE:
        values.byteswap()
    if len(values) != count:
        raise ValueError("truncated array")
    return Array(shape, values, bool(header["fortran_order"]))


def read_npz(data: bytes) -> Dict[str, Any]:
    """An .npz (bytes) -> {name: array}."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n[:-4]: read_npy(z.read(n)) for n in z.namelist() if n.endswith(".npy")}


# ------------------------------------------------------------- uploads --

CHUNK = 1 << 22


def dense_npy(values: Any, shape: Tuple[int, ...]) -> Tuple[int, Iterator[bytes]]:
    """A dense float64 array as .npy bytes, as (length, chunks): a
    C-contiguous NumPy array is sent from its own memory, without a copy;
    nested lists (or a flat sequence with shape) are packed row by row."""
    head = npy_header(f8_descr(), shape)
    if hasattr(values, "__array_interface__"):
        mv = memoryview(values).cast("B")
        n = len(head) + mv.nbytes

        def chunks() -> Iterator[bytes]:
            yield head
            for i in range(0, mv.nbytes, CHUNK):
                yield mv[i:i + CHUNK]  # type: ignore[misc]
        return n, chunks()
    flat = array.array("d")
    for row in values if len(shape) == 2 else [values]:
        flat.extend(float(v) for v in row)
    if not LITTLE:
        pass  # the header says big-endian then
    raw = flat.tobytes()
    return len(head) + len(raw), iter([head, raw])


def scipy_npz(fmt: str, shape: Tuple[int, int], arrays: Sequence[Tuple[str, Any]]) -> bytes:
    """SciPy's sparse .npz layout (scipy.sparse.save_npz): members format
    (bytes), shape and the arrays (NumPy arrays), stored uncompressed."""
    import numpy  # type: ignore[import-not-found]  # the caller has it
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        members: List[Tuple[str, Any]] = [("format", numpy.array(fmt.encode("ascii"))),
                                          ("shape", numpy.array(shape, dtype=numpy.int64))]
        members.extend(arrays)
        for name, a in members:
            out = io.BytesIO()
            numpy.save(out, a, allow_pickle=False)
            z.writestr(name + ".npy", out.getvalue())
    return buf.getvalue()


def is_numpy(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "numpy"


def flat_floats(v: Any) -> List[float]:
    """A sequence of numbers as a list of floats (for inline JSON)."""
    return [float(x) for x in v]


def optional_numpy() -> Optional[Any]:
    try:
        import numpy  # type: ignore[import-not-found]  # optional
    except ImportError:
        return None
    return numpy
