"""Client.solve: a Problem to a Solution in one call -- its data sent
inline or uploaded as datasets, the job submitted, followed with a
progress bar, and its answer fetched as arrays."""

import hashlib
import warnings
from typing import TYPE_CHECKING, Any, Dict, Optional

from .errors import IrcgError
from .npyio import read_npz
from .problems import DATASET_KIND, DATASET_MEMBER, Problem
from .progress import Progress
from .solution import IrcgWarning, JobFailed, LowRank, Solution

if TYPE_CHECKING:
    from .client import Client

# Data of more numbers than this is uploaded (as .npy or .npz: 8 bytes a
# number, sent from the arrays' memory), smaller data goes inline in the
# spec (about 20 bytes of JSON a number).
INLINE_LIMIT = 100000


def upload_array(client: "Client", array: Any, kind: str, dedupe: bool = True
                 ) -> Dict[str, Any]:
    """An array of a Problem as a dataset: its SHA-256 first (a dataset
    with those bytes is used as it is), then the bytes, streamed."""
    length, chunks, fmt = array.upload_body()
    chunks = list(chunks)  # views of the array's memory: cheap to keep
    if dedupe:
        h = hashlib.sha256()
        for c in chunks:
            h.update(c)
        try:
            doc = client.dataset(h.hexdigest())
            doc["existed"] = True
            return doc
        except IrcgError as e:
            if e.status != 404:
                raise
    return client.upload_stream(length, iter(chunks), kind=kind, format=fmt)


def problem_data(client: "Client", problem: Problem, upload: Any,
                 inline_limit: int) -> Dict[str, Any]:
    """The spec's "data": inline, or the datasets uploaded for it."""
    up = problem.numbers > inline_limit if upload == "auto" else bool(upload)
    if not up:
        return problem.data_inline()
    data: Dict[str, Any] = {"source": "dataset"}
    for key, array in problem.arrays.items():
        ds = upload_array(client, array, DATASET_KIND[key])
        data[DATASET_MEMBER[key]] = ds["id"]
    return data


def build_spec(problem: Problem, data: Dict[str, Any], stop: Optional[Dict[str, Any]],
               method: Optional[str], algorithm: Dict[str, Any],
               output: Optional[Dict[str, Any]], reference: Optional[Dict[str, Any]]
               ) -> Dict[str, Any]:
    spec: Dict[str, Any] = {"problem": dict(type=problem.type, data=data, **problem.members)}
    alg = dict(algorithm)
    if method is not None:
        alg["name"] = method  # any name the service knows: it says which it does not
    if stop is not None:
        alg["stop"] = dict(stop)
    if alg:
        spec["algorithm"] = alg
    if output:
        spec["output"] = dict(output)
    if reference:
        spec["reference"] = dict(reference)
    return spec


def iterate(client: "Client", id: str, which: str, kind: str) -> Any:
    """x or z of a finished job, from its .npz (the result's doubles)."""
    arrays = read_npz(client.result_npz(id, which))
    if kind == "matrix_completion":
        return LowRank(arrays)
    x = arrays["x"]
    return x if hasattr(x, "dtype") else x.tolist()


def fetch(client: "Client", job: Dict[str, Any], kind: str, stacklevel: int = 3) -> Solution:
    """The Solution of a finished job; JobFailed when it failed."""
    if job.get("state") == "failed":
        err = job.get("error") or {}
        errors = [(str(e.get("pointer", "")), str(e.get("reason", "")))
                  for e in err.get("errors") or [] if isinstance(e, dict)]
        raise JobFailed("job %s failed: %s" % (job["id"], err.get("detail") or
                                               err.get("title") or "no reason given"),
                        job, title=str(err.get("title") or ""),
                        detail=str(err.get("detail") or ""), type=str(err.get("type") or ""),
                        errors=errors)
    result = client.result(job["id"])
    has = {w: isinstance(result.get(w), dict) for w in ("x", "z")}
    x = iterate(client, job["id"], "x", kind) if has["x"] else None
    z = iterate(client, job["id"], "z", kind) if has["z"] else None
    sol = Solution(client, job, result, x, z)
    for w in sol.warnings:
        warnings.warn(IrcgWarning(str(w.get("code", "")), str(w.get("message", ""))),
                      stacklevel=stacklevel)
    return sol


def solve(client: "Client", problem: Problem, stop: Optional[Dict[str, Any]] = None,
          method: Optional[str] = None, progress: Any = True, timeout: Optional[float] = None,
          upload: Any = "auto", inline_limit: int = INLINE_LIMIT,
          output: Optional[Dict[str, Any]] = None, reference: Optional[Dict[str, Any]] = None,
          idempotency_key: Optional[str] = None, **algorithm: Any) -> Solution:
    data = problem_data(client, problem, upload, inline_limit)
    spec = build_spec(problem, data, stop, method, algorithm, output, reference)
    job = client.submit(spec, idempotency_key=idempotency_key)
    total = (job.get("progress") or {}).get("max_iter")
    bar = Progress(bool(progress), int(total) if isinstance(total, (int, float)) else None,
                   job["id"], use_tqdm=None if progress is True else progress != "lines")
    final: Optional[Dict[str, Any]] = None
    try:
        final = client.wait(job["id"], timeout=timeout, on_event=bar)
    finally:
        bar.close(final)
    return fetch(client, final, problem.type, stacklevel=4)
