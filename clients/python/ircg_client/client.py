"""The Client: every operation of the ircgd API over http.client."""

import gzip
import http.client
import json
import ssl
import time
import urllib.parse
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

from .errors import IrcgError, ProtocolError, TransportError, WaitTimeout, http_error
from .sse import STREAM_IDLE, Event, read_events
from .wait import Waiter

__version__ = "0.1.0"

STATES = ("queued", "running", "succeeded", "failed", "cancelled")


def _decoded(resp: http.client.HTTPResponse, data: bytes) -> bytes:
    """The body as sent before Content-Encoding (we ask for gzip)."""
    if (resp.getheader("Content-Encoding") or "").lower() == "gzip":
        return gzip.decompress(data)
    return data


class _Response:
    def __init__(self, status: int, headers: Any, body: bytes):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Dict[str, Any]:
        try:
            doc = json.loads(self.body.decode("utf-8"))
        except ValueError as e:
            raise ProtocolError("the answer (HTTP %d) is not JSON: %s" % (self.status, e),
                                self.status, body=self.body.decode("utf-8", "replace"))
        if not isinstance(doc, dict):
            raise ProtocolError("the answer is not a JSON object", self.status)
        return doc


def _quote(s: str) -> str:
    if not isinstance(s, str) or not s:
        raise ValueError("an id must be a non-empty string")
    return urllib.parse.quote(s, safe="")


class Client:
    """A client of one ircgd.  base_url: "http://host:port", optionally with
    a path prefix; token: a bearer token or None; timeout: seconds for one
    request (event streams use the wait deadline instead)."""

    def __init__(self, base_url: str, token: Optional[str] = None,
                 timeout: float = 60.0, connect_timeout: float = 5.0,
                 user_agent: Optional[str] = None):
        u = urllib.parse.urlsplit(base_url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError("base_url must be http://host[:port][/prefix] or https://...")
        if token is not None and (not token or "\n" in token or "\r" in token):
            raise ValueError("the token must be non-empty and on one line")
        if not (timeout > 0 and connect_timeout > 0):
            raise ValueError("timeouts must be > 0")
        self._https = u.scheme == "https"
        self._host = u.hostname
        self._port = u.port or (443 if self._https else 80)
        self._prefix = u.path.rstrip("/")
        self.base_url = base_url.rstrip("/")
        self._token = token
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.user_agent = user_agent or "ircg-client-python/" + __version__

    _quote = staticmethod(_quote)

    # -- one exchange ------------------------------------------------------

    def _connect(self, connect_timeout: float) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port,
                                               timeout=connect_timeout,
                                               context=ssl.create_default_context())
        return http.client.HTTPConnection(self._host, self._port, timeout=connect_timeout)

    @staticmethod
    def _left(deadline: Optional[float], limit: float) -> float:
        """limit, or less when the deadline is nearer; WaitTimeout past it."""
        if deadline is None:
            return limit
        left = deadline - time.monotonic()
        if left <= 0:
            raise WaitTimeout("the deadline passed")
        return min(limit, left)

    def _open(self, method: str, path: str, body: Optional[bytes] = None,
              ctype: Optional[str] = None, headers: Optional[Dict[str, str]] = None,
              timeout: Optional[float] = None, deadline: Optional[float] = None
              ) -> Tuple[http.client.HTTPConnection, Any, http.client.HTTPResponse]:
        """Sends a request; returns (connection, socket, response) with the
        body unread.  Raises TransportError when no answer comes, and
        WaitTimeout when deadline (a time.monotonic() value) passes first."""
        h = {"User-Agent": self.user_agent, "Accept": "application/json",
             "Accept-Encoding": "gzip"}
        if self._token:
            h["Authorization"] = "Bearer " + self._token
        if ctype:
            h["Content-Type"] = ctype
        h.update(headers or {})
        conn = self._connect(self._left(deadline, self.connect_timeout))
        try:
            conn.connect()
            # kept: getresponse() may drop conn.sock when the answer ends
            # the connection, and a stream's reads need their timeout moved
            sock = conn.sock
            sock.settimeout(self._left(deadline, self.timeout if timeout is None else timeout))
            conn.request(method, self._prefix + path, body=body, headers=h)
            return conn, sock, conn.getresponse()
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            if deadline is not None and time.monotonic() >= deadline:
                raise WaitTimeout("the deadline passed") from e
            raise TransportError("%s %s%s: %s" % (method, self.base_url, path, e)) from e

    def _call(self, method: str, path: str, body: Optional[bytes] = None,
              ctype: Optional[str] = None, ok: Tuple[int, ...] = (200,),
              headers: Optional[Dict[str, str]] = None,
              deadline: Optional[float] = None) -> _Response:
        conn, _, resp = self._open(method, path, body, ctype, headers, deadline=deadline)
        try:
            data = _decoded(resp, resp.read())
        except (OSError, http.client.HTTPException) as e:
            if deadline is not None and time.monotonic() >= deadline:
                raise WaitTimeout("the deadline passed") from e
            raise TransportError("%s %s%s: %s" % (method, self.base_url, path, e)) from e
        finally:
            conn.close()
        if resp.status not in ok:
            raise http_error(resp.status, data, resp.headers)
        return _Response(resp.status, resp.headers, data)

    def request(self, method: str, path: str, body: Optional[bytes] = None,
                ctype: Optional[str] = None) -> Tuple[int, bytes]:
        """Any request: (status, body); only a missing answer raises."""
        if not path.startswith("/"):
            raise ValueError("path must start with '/'")
        conn, _, resp = self._open(method, path, body, ctype)
        try:
            return resp.status, _decoded(resp, resp.read())
        finally:
            conn.close()

    # -- jobs ----------------------------------------------------------------

    def submit(self, spec: Union[Dict[str, Any], str], idempotency_key: Optional[str] = None,
               dry_run: bool = False) -> Dict[str, Any]:
        """POST /v1/jobs: the job resource (202; 200 when an Idempotency-Key
        replays an existing job, "replayed" is then True).  dry_run: only
        validate; returns {"valid": true, "spec": <normalized>}."""
        text = spec if isinstance(spec, str) else json.dumps(spec)
        headers = {}
        if idempotency_key is not None:
            if not idempotency_key or len(idempotency_key.encode()) > 255:
                raise ValueError("the Idempotency-Key must be 1..255 bytes")
            headers["Idempotency-Key"] = idempotency_key
        path = "/v1/jobs?dry_run=true" if dry_run else "/v1/jobs"
        r = self._call("POST", path, text.encode("utf-8"), "application/json",
                       (200,) if dry_run else (200, 202), headers)
        doc = r.json()
        if not dry_run:
            doc["replayed"] = (r.headers.get("Idempotent-Replayed", "")
                               .lower() == "true")
        return doc

    def job(self, id: str) -> Dict[str, Any]:
        """GET /v1/jobs/{id}: state, progress, timestamps, links."""
        return self._call("GET", "/v1/jobs/" + _quote(id)).json()

    def jobs(self, state: Optional[str] = None, page_size: Optional[int] = None,
             page_token: Optional[str] = None) -> Dict[str, Any]:
        """GET /v1/jobs: one page, {"jobs": [...], "next_page_token": str|None}."""
        q = {}
        if state:
            q["state"] = state
        if page_size is not None:
            q["page_size"] = str(page_size)
        if page_token:
            q["page_token"] = page_token
        path = "/v1/jobs" + ("?" + urllib.parse.urlencode(q) if q else "")
        return self._call("GET", path).json()

    def iter_jobs(self, state: Optional[str] = None,
                  page_size: int = 100) -> Iterator[Dict[str, Any]]:
        """Every job (newest first), following the page tokens."""
        token = None
        while True:
            page = self.jobs(state, page_size, token)
            yield from page.get("jobs", [])
            token = page.get("next_page_token")
            if not token:
                return

    def cancel(self, id: str) -> Dict[str, Any]:
        """POST /v1/jobs/{id}/cancel: queued jobs stop at once, running ones
        within an iteration (cancel_requested).  409 when already finished."""
        return self._call("POST", "/v1/jobs/%s/cancel" % _quote(id), b"",
                          ok=(200, 202)).json()

    def delete(self, id: str) -> None:
        """DELETE /v1/jobs/{id}; 409 while the job is not finished."""
        self._call("DELETE", "/v1/jobs/" + _quote(id), ok=(204,))

    # -- following a job -----------------------------------------------------

    def events(self, id: str, last_event_id: int = 0,
               deadline: Optional[float] = None) -> Iterator[Event]:
        """GET /v1/jobs/{id}/events on one connection: the events after
        last_event_id, until the job's "end" event or the stream closes.
        deadline: a time.monotonic() value; past it WaitTimeout is raised."""
        headers = {"Accept": "text/event-stream"}
        if last_event_id > 0:
            headers["Last-Event-ID"] = str(last_event_id)
        conn, sock, resp = self._open("GET", "/v1/jobs/%s/events" % _quote(id),
                                      headers=headers, timeout=STREAM_IDLE, deadline=deadline)
        try:
            if resp.status != 200:
                raise http_error(resp.status, _decoded(resp, resp.read()), resp.headers)
            yield from read_events(sock, resp, deadline)
        finally:
            conn.close()

    def watch(self, id: str, timeout: Optional[float] = None) -> Iterator[Event]:
        """Every event of a job as it happens -- "state", "progress",
        "snapshot", and "end" last --, from its first event, reconnecting
        (Last-Event-ID) when a stream breaks; WaitTimeout after timeout
        seconds (None: no limit).

            for ev in c.watch(job_id):
                if ev.type == "progress":
                    print(ev.data["iteration"], ev.data["g_x"])
        """
        return Waiter(self, id, timeout).events()

    def wait(self, id: str, timeout: Optional[float] = None, mode: str = "events",
             on_event: Optional[Callable[[Event], Any]] = None,
             poll_initial: float = 0.05, poll_max: float = 2.0, poll_factor: float = 1.5,
             max_failures: int = 3) -> Dict[str, Any]:
        """Waits until the job is succeeded, failed or cancelled; returns its
        final resource.  mode "events" follows the Server-Sent Events
        (resuming with Last-Event-ID when a stream breaks), "poll" polls the
        job with If-None-Match, the interval growing from poll_initial by
        poll_factor to poll_max.  on_event(Event) sees each state change and
        progress report (when polling: Event(0, "state"|"progress", job));
        returning True stops the wait with WaitStopped.  Up to max_failures
        consecutive transport errors or 5xx answers are retried; a 4xx
        (404: the job was deleted) raises at once.  timeout (seconds, None:
        no limit) is honoured exactly: every request is bounded by it, and
        WaitTimeout is raised when it passes."""
        if mode not in ("events", "poll"):
            raise ValueError('mode must be "events" or "poll"')
        if not (poll_initial > 0 and poll_max >= poll_initial and poll_factor >= 1
                and max_failures >= 0):
            raise ValueError("need poll_initial > 0, poll_max >= poll_initial, "
                             "poll_factor >= 1, max_failures >= 0")
        w = Waiter(self, id, timeout, on_event, poll_initial, poll_max, poll_factor,
                   max_failures)
        return w.poll() if mode == "poll" else w.follow()

    # -- what a job produced -------------------------------------------------

    def trace_page(self, id: str, after: int = 0, limit: Optional[int] = None,
                   format: str = "json") -> Union[Dict[str, Any], str]:
        """GET /v1/jobs/{id}/trace once: rows with t > after, at most limit
        of them, or every one (limit None: the server streams the whole
        trace).  JSON: {"rows": [...], "next_after": N}; CSV: the text."""
        if format not in ("json", "csv"):
            raise ValueError('format must be "json" or "csv"')
        q = {"format": format, "after": str(int(after))}
        if limit is not None:
            q["limit"] = str(int(limit))
        r = self._call("GET", "/v1/jobs/%s/trace?%s" % (_quote(id), urllib.parse.urlencode(q)))
        return r.json() if format == "json" else r.body.decode("utf-8")

    def trace_rows(self, id: str, after: int = 0, page: int = 10000) -> Iterator[Dict[str, Any]]:
        """Every trace row after `after`, page by page from each page's
        cursor (next_after)."""
        while True:
            doc = self.trace_page(id, after, page)
            assert isinstance(doc, dict)
            rows = doc.get("rows", [])
            yield from rows
            if not rows:
                return
            after = int(doc["next_after"])

    def trace(self, id: str, after: int = 0, as_frame: Optional[bool] = None) -> Any:
        """Every row of a job's trace (t, elapsed, sigma, alpha, g_x, f_x,
        g_z, f_z, gap, g_gap_x, ...; None for a value the solver did not
        report): a pandas DataFrame when pandas is installed (as_frame None)
        or asked for (True), else a list of dicts."""
        doc = self.trace_page(id, after)
        assert isinstance(doc, dict)
        rows = doc.get("rows", [])
        if as_frame is False:
            return rows
        try:
            import pandas  # type: ignore[import-not-found]  # optional
        except ImportError:
            if as_frame:
                raise
            return rows
        return pandas.DataFrame.from_records(rows, columns=list(rows[0]) if rows else None)

    def trace_csv(self, id: str) -> str:
        """The whole trace as CSV text, one header line."""
        text = self.trace_page(id, 0, None, "csv")
        assert isinstance(text, str)
        return text

    def result(self, id: str) -> Dict[str, Any]:
        """GET /v1/jobs/{id}/result; 409 (retry_after set) until finished."""
        return self._call("GET", "/v1/jobs/%s/result" % _quote(id)).json()

    def result_npz(self, id: str, which: str = "x") -> bytes:
        """GET /v1/jobs/{id}/result?x=npz (which "x") or ?z=npz: a finished
        job's iterate as .npz bytes (numpy.load, or npyio.read_npz without
        NumPy), the same doubles as the result's."""
        if which not in ("x", "z"):
            raise ValueError('which must be "x" or "z"')
        return self._call("GET", "/v1/jobs/%s/result?%s=npz" % (_quote(id), which)).body

    def solve(self, problem: Any, stop: Optional[Dict[str, Any]] = None,
              method: Optional[str] = None, progress: Any = True,
              timeout: Optional[float] = None, **kwargs: Any) -> Any:
        """A Problem (least_squares(A, b, ...), logistic_regression,
        matrix_completion) solved in one call: small data inline, large data
        uploaded as datasets (upload="auto"|True|False, inline_limit
        numbers), the job submitted with `stop` (the spec's algorithm.stop)
        and `method` (algorithm.name: any the service knows) and any other
        algorithm member as a keyword (max_iter=..., step_rule=...; output=,
        reference= and idempotency_key= too), followed with a progress bar
        (tqdm where installed, plain lines otherwise; progress=False: none,
        "lines": lines), and its answer fetched: a Solution with x and z as
        arrays.  Raises JobFailed when the job fails, IrcgError when the
        service refuses the spec; warns (IrcgWarning) for each warning of
        the result."""
        from .solve import solve
        return solve(self, problem, stop=stop, method=method, progress=progress,
                     timeout=timeout, **kwargs)

    def certificate(self, id: str) -> Optional[Dict[str, Any]]:
        """How far from optimal a finished job's result is (api/SPEC.md,
        Results): {"iteration", "answer", "inner_gap_x", "outer_gap_x",
        "inner_gap_z", "outer_gap_z", "g_lower", "g_upper", "f_lower",
        ...}, certified: g(x) - g* <= inner_gap_x and f(x) - f* <=
        outer_gap_x, the same for z; "answer" names the method's answer
        ("x", or "z" for fcbio, fcbio-cg and two-stage), whose gaps
        answer_gaps gives.  None when the result has none."""
        return self.result(id).get("certificate")

    @staticmethod
    def answer_gaps(certificate: Dict[str, Any]) -> Tuple[float, float]:
        """(inner, outer): the certified gaps of the certificate's answer,
        g(y) - g* and f(y) - f* for y its "answer" (x unless it says z)."""
        y = "z" if certificate.get("answer") == "z" else "x"
        return certificate["inner_gap_" + y], certificate["outer_gap_" + y]

    @staticmethod
    def warnings(doc: Dict[str, Any]) -> List[Dict[str, str]]:
        """The warnings of a result or a job resource: [{"code", "message"}]
        (inner_unsolved, outer_unsolved, uncertified, loose, below_optimum),
        [] when the
        result is what it seems."""
        w = doc.get("warnings")
        return list(w) if isinstance(w, list) else []

    def snapshots(self, id: str) -> List[Dict[str, Any]]:
        """GET /v1/jobs/{id}/snapshots: [{"iteration", "kind", "bytes", ...}]."""
        return self._call("GET", "/v1/jobs/%s/snapshots" % _quote(id)).json()["snapshots"]

    def snapshot(self, id: str, iteration: int, kind: str) -> bytes:
        """The stored bytes of one snapshot (kind "state", "x" or "z")."""
        return self._call("GET", "/v1/jobs/%s/snapshots/%d/%s"
                          % (_quote(id), int(iteration), _quote(kind))).body

    # -- datasets, service ---------------------------------------------------

    def upload_file(self, path: str, format: Optional[str] = None,
                    kind: Optional[str] = None) -> Dict[str, Any]:
        """A file uploaded as a dataset, streamed from the disk: ratings
        (its "id" goes in a spec as {"source": "dataset", "id": ...}), a
        matrix or a vector (kind "matrix", "vector": {"source": "dataset",
        "id": A's, "b_id": b's, ...}); kind and format None: told by the
        server from the content."""
        import os
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            return self.upload_stream(size, iter(lambda: f.read(1 << 22), b""), kind, format)

    def upload_dataset(self, data: bytes, format: Optional[str] = None,
                       kind: Optional[str] = None) -> Dict[str, Any]:
        """POST /v1/datasets; "existed" is True when the bytes were there."""
        return self.upload_stream(len(data), iter([bytes(data)]), kind, format)

    def upload_stream(self, length: int, chunks: Iterator[Any], kind: Optional[str] = None,
                      format: Optional[str] = None) -> Dict[str, Any]:
        """POST /v1/datasets with `length` bytes given as chunks (bytes or
        memoryviews), sent as they come: the upload holds no copy."""
        q = {k: v for k, v in (("kind", kind), ("format", format)) if v}
        path = "/v1/datasets" + ("?" + urllib.parse.urlencode(q) if q else "")
        r = self._call("POST", path, chunks, "application/octet-stream", (200, 201),
                       {"Content-Length": str(int(length))})  # type: ignore[arg-type]
        doc = r.json()
        doc["existed"] = r.status == 200
        return doc

    def dataset(self, id: str) -> Dict[str, Any]:
        return self._call("GET", "/v1/datasets/" + _quote(id)).json()

    def health(self) -> Dict[str, Any]:
        return self._call("GET", "/healthz").json()

    def ready(self) -> Dict[str, Any]:
        """GET /readyz; a 503 raises with the reason in .detail."""
        return self._call("GET", "/readyz").json()

    def version(self) -> Dict[str, Any]:
        return self._call("GET", "/v1/version").json()

    def metrics(self) -> str:
        return self._call("GET", "/metrics").body.decode("utf-8")


