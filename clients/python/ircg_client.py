"""ircg_client -- a Python client of the ircgd solver service.

Standard library only (http.client, json); Python 3.9 or newer.

    from ircg_client import Client, IrcgError
    c = Client("http://127.0.0.1:8080", token=None)
    job = c.submit(spec)                 # spec: a dict or a JSON string
    job = c.wait(job["id"], on_event=print)
    result = c.result(job["id"])

Every failure raises IrcgError (or a subclass) carrying the HTTP status (0
when no answer came), and for an application/problem+json answer its type,
title, detail and the (pointer, reason) pairs of its "errors" list.

A Client holds no connection between calls (each request opens its own), so
one Client may be shared by threads; a wait() runs in the calling thread.

As a command:  python3 -m ircg_client [--url URL] [--token T] COMMAND ...
(run `python3 -m ircg_client --help`).
"""

import argparse
import gzip
import http.client
import json
import math
import os
import socket
import ssl
import sys
import time
import urllib.parse
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

__version__ = "0.1.0"

STATES = ("queued", "running", "succeeded", "failed", "cancelled")
TERMINAL = ("succeeded", "failed", "cancelled")

# The server sends a heartbeat every 15 s: this long without a byte means
# the event stream is dead.
_STREAM_IDLE = 45.0


# ------------------------------------------------------------------ errors --

class IrcgError(Exception):
    """A request failed.  status is the HTTP status (0: no answer); type,
    title and detail come from a problem+json answer; errors lists its
    (pointer, reason) pairs; body is the raw answer text."""

    def __init__(self, message: str, status: int = 0, title: str = "",
                 detail: str = "", type: str = "",
                 errors: Optional[List[Tuple[str, str]]] = None,
                 body: str = "", retry_after: Optional[float] = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.title = title
        self.detail = detail
        self.type = type
        self.errors = list(errors or [])
        self.body = body
        self.retry_after = retry_after

    def reason(self, pointer: str) -> Optional[str]:
        """The reason given for a JSON pointer, or None if not listed."""
        for p, r in self.errors:
            if p == pointer:
                return r
        return None

    def problem(self) -> Optional[Dict[str, Any]]:
        """The answer as a dict when it was JSON (extension members such as
        "line" of an invalid dataset or "state" of a result not ready)."""
        try:
            doc = json.loads(self.body)
        except ValueError:
            return None
        return doc if isinstance(doc, dict) else None


class TransportError(IrcgError):
    """No HTTP answer: connection refused, reset, timed out."""


class ProtocolError(IrcgError):
    """An answer that is not what the API promises."""


class WaitTimeout(IrcgError):
    """wait(): the job did not finish before the deadline."""


class WaitStopped(IrcgError):
    """wait(): the on_event callback returned True."""


def _decoded(resp, data: bytes) -> bytes:
    """The body as sent before Content-Encoding (we ask for gzip)."""
    if resp.getheader("Content-Encoding", "").lower() == "gzip":
        return gzip.decompress(data)
    return data


def _http_error(status: int, body: bytes, headers) -> IrcgError:
    text = body.decode("utf-8", "replace")
    ctype = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
    title = detail = ptype = ""
    errors: List[Tuple[str, str]] = []
    if ctype in ("application/problem+json", "application/json"):
        try:
            doc = json.loads(text)
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            title = str(doc.get("title") or "")
            detail = str(doc.get("detail") or doc.get("reason") or "")
            ptype = str(doc.get("type") or "")
            for e in doc.get("errors") or []:
                if isinstance(e, dict):
                    errors.append((str(e.get("pointer", "")), str(e.get("reason", ""))))
    retry = headers.get("Retry-After")
    try:
        retry_after = float(retry) if retry is not None else None
    except ValueError:
        retry_after = None
    msg = "HTTP %d" % status
    if title or detail:
        msg += " " + ": ".join(x for x in (title, detail) if x)
    return IrcgError(msg, status, title, detail, ptype, errors, text, retry_after)


# ------------------------------------------------------------------ client --

class Event:
    """One Server-Sent Event of a job: id, type ("state", "progress",
    "snapshot", "end") and data (the decoded JSON object)."""

    __slots__ = ("id", "type", "data")

    def __init__(self, id: int, type: str, data: Dict[str, Any]):
        self.id = id
        self.type = type
        self.data = data

    def __repr__(self) -> str:
        return "Event(%d, %r, %r)" % (self.id, self.type, self.data)


class _Response:
    def __init__(self, status: int, headers, body: bytes):
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

    # -- one exchange ------------------------------------------------------

    def _connect(self) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port,
                                               timeout=self.connect_timeout,
                                               context=ssl.create_default_context())
        return http.client.HTTPConnection(self._host, self._port,
                                          timeout=self.connect_timeout)

    def _open(self, method: str, path: str, body: Optional[bytes] = None,
              ctype: Optional[str] = None, headers: Optional[Dict[str, str]] = None,
              timeout: Optional[float] = None):
        """Sends a request; returns (connection, socket, response) with the
        body unread.  Raises TransportError when no answer comes."""
        h = {"User-Agent": self.user_agent, "Accept": "application/json",
             "Accept-Encoding": "gzip"}
        if self._token:
            h["Authorization"] = "Bearer " + self._token
        if ctype:
            h["Content-Type"] = ctype
        h.update(headers or {})
        conn = self._connect()
        try:
            conn.connect()
            # kept: getresponse() may drop conn.sock when the answer ends
            # the connection, and a stream's reads need their timeout moved
            sock = conn.sock
            sock.settimeout(self.timeout if timeout is None else timeout)
            conn.request(method, self._prefix + path, body=body, headers=h)
            return conn, sock, conn.getresponse()
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            raise TransportError("%s %s%s: %s" % (method, self.base_url, path, e)) from e

    def _call(self, method: str, path: str, body: Optional[bytes] = None,
              ctype: Optional[str] = None, ok: Tuple[int, ...] = (200,),
              headers: Optional[Dict[str, str]] = None) -> _Response:
        conn, _, resp = self._open(method, path, body, ctype, headers)
        try:
            data = _decoded(resp, resp.read())
        except (OSError, http.client.HTTPException) as e:
            raise TransportError("%s %s%s: %s" % (method, self.base_url, path, e)) from e
        finally:
            conn.close()
        if resp.status not in ok:
            raise _http_error(resp.status, data, resp.headers)
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
        first = _STREAM_IDLE if deadline is None else \
            max(0.001, min(_STREAM_IDLE, deadline - time.monotonic()))
        conn, sock, resp = self._open("GET", "/v1/jobs/%s/events" % _quote(id),
                                      headers=headers, timeout=first)
        try:
            if resp.status != 200:
                raise _http_error(resp.status, _decoded(resp, resp.read()), resp.headers)
            yield from self._read_events(sock, resp, deadline)
        finally:
            conn.close()

    @staticmethod
    def _read_events(sock, resp, deadline: Optional[float]) -> Iterator[Event]:
        etype, data, eid = "", [], 0
        while True:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise WaitTimeout("the deadline passed")
                sock.settimeout(min(_STREAM_IDLE, left))
            try:
                raw = resp.readline()
            except socket.timeout:
                if deadline is not None and time.monotonic() >= deadline:
                    raise WaitTimeout("the deadline passed") from None
                return  # idle too long: the caller reconnects
            except (OSError, http.client.HTTPException):
                return  # the stream broke: the caller reconnects
            if not raw:
                return
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if not line:
                if data:
                    try:
                        doc = json.loads("\n".join(data))
                    except ValueError:
                        doc = {}
                    yield Event(eid, etype or "message", doc if isinstance(doc, dict) else {})
                    if etype == "end":
                        return
                etype, data = "", []
                continue
            if line.startswith(":"):
                continue  # heartbeat
            field, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if field == "event":
                etype = value
            elif field == "data":
                data.append(value)
            elif field == "id" and value.isdigit():
                eid = int(value)

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
        (404: the job was deleted) raises at once."""
        if mode not in ("events", "poll"):
            raise ValueError('mode must be "events" or "poll"')
        if not (poll_initial > 0 and poll_max >= poll_initial and poll_factor >= 1
                and max_failures >= 0):
            raise ValueError("need poll_initial > 0, poll_max >= poll_initial, "
                             "poll_factor >= 1, max_failures >= 0")
        w = _Waiter(self, id, timeout, on_event, poll_initial, poll_max, poll_factor,
                    max_failures)
        return w.poll() if mode == "poll" else w.follow()

    # -- what a job produced -------------------------------------------------

    def trace(self, id: str, after: int = 0, limit: Optional[int] = None,
              format: str = "json") -> Union[Dict[str, Any], str]:
        """GET /v1/jobs/{id}/trace: every row with t > after (limit None), or
        one page of at most `limit` rows.  JSON: {"rows": [...],
        "next_after": N}; CSV: the text (header line first)."""
        if format not in ("json", "csv"):
            raise ValueError('format must be "json" or "csv"')
        q = {"format": format, "after": str(int(after))}
        if limit is not None:
            q["limit"] = str(int(limit))
        r = self._call("GET", "/v1/jobs/%s/trace?%s" % (_quote(id), urllib.parse.urlencode(q)))
        return r.json() if format == "json" else r.body.decode("utf-8")

    def trace_rows(self, id: str, after: int = 0, page: int = 10000) -> Iterator[Dict[str, Any]]:
        """Every trace row after `after`, page by page (bounded memory)."""
        while True:
            doc = self.trace(id, after, page)
            rows = doc.get("rows", [])
            yield from rows
            if not rows:
                return
            after = int(doc["next_after"])

    def result(self, id: str) -> Dict[str, Any]:
        """GET /v1/jobs/{id}/result; 409 (retry_after set) until finished."""
        return self._call("GET", "/v1/jobs/%s/result" % _quote(id)).json()

    def snapshots(self, id: str) -> List[Dict[str, Any]]:
        """GET /v1/jobs/{id}/snapshots: [{"iteration", "kind", "bytes", ...}]."""
        return self._call("GET", "/v1/jobs/%s/snapshots" % _quote(id)).json()["snapshots"]

    def snapshot(self, id: str, iteration: int, kind: str) -> bytes:
        """The stored bytes of one snapshot (kind "state", "x" or "z")."""
        return self._call("GET", "/v1/jobs/%s/snapshots/%d/%s"
                          % (_quote(id), int(iteration), _quote(kind))).body

    # -- datasets, service ---------------------------------------------------

    def upload_dataset(self, data: bytes, format: Optional[str] = None) -> Dict[str, Any]:
        """POST /v1/datasets; "existed" is True when the bytes were there."""
        path = "/v1/datasets" + ("?format=" + _quote(format) if format else "")
        r = self._call("POST", path, bytes(data), "application/octet-stream", (200, 201))
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


class _Waiter:
    """The state of one Client.wait()."""

    def __init__(self, client, id, timeout, on_event, p0, pmax, factor, max_failures):
        self.c = client
        self.id = id
        self.deadline = None if not timeout or timeout <= 0 else time.monotonic() + timeout
        self.timeout = timeout
        self.on_event = on_event
        self.p0, self.pmax, self.factor = p0, pmax, factor
        self.max_failures = max_failures
        self.failures = 0
        self.state = "unknown"

    def _notify(self, ev: Event) -> None:
        if self.on_event is not None and self.on_event(ev) is True:
            raise WaitStopped("the on_event callback asked to stop")

    def _pause(self, seconds: float) -> None:
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise self._timeout()
            seconds = min(seconds, left)
        time.sleep(seconds)

    def _tolerate(self, e: IrcgError) -> None:
        """Re-raises e unless it is a transient failure within budget."""
        if not (isinstance(e, TransportError) or e.status >= 500):
            raise e
        self.failures += 1
        if self.failures > self.max_failures:
            raise e
        self._pause(min(self.p0 * self.factor ** (self.failures - 1), self.pmax))

    def _timeout(self) -> WaitTimeout:
        return WaitTimeout("job %s not finished after %g s (last state %s)"
                           % (self.id, self.timeout, self.state))

    def follow(self) -> Dict[str, Any]:
        last_id = 0
        while True:
            seen = 0
            try:
                for ev in self.c.events(self.id, last_id, self.deadline):
                    last_id = ev.id
                    seen += 1
                    self.state = ev.data.get("state", self.state)
                    if ev.type == "end":
                        return self.c.job(self.id)
                    self._notify(ev)
            except WaitTimeout:
                raise self._timeout() from None
            except WaitStopped:
                raise
            except IrcgError as e:
                self._tolerate(e)
                continue
            # closed before "end": a shutdown, a proxy, or nothing left to say
            if seen:
                self.failures = 0
            try:
                job = self.c.job(self.id)
            except IrcgError as e:
                self._tolerate(e)
                continue
            if job.get("state") in TERMINAL:
                return job
            self._pause(self.pmax)

    def poll(self) -> Dict[str, Any]:
        delay, etag, job = self.p0, None, None
        seen_state, seen_iter = None, None
        while True:
            try:
                r = self.c._call("GET", "/v1/jobs/" + _quote(self.id), ok=(200, 304),
                                 headers={"If-None-Match": etag} if etag else None)
            except IrcgError as e:
                self._tolerate(e)
                continue
            self.failures = 0
            if r.status == 200:
                job = r.json()
                etag = r.headers.get("ETag")
                self.state = job.get("state", "unknown")
                it = (job.get("progress") or {}).get("iteration", 0)
                if self.state != seen_state:
                    self._notify(Event(0, "state", job))
                if it != seen_iter and it:
                    self._notify(Event(0, "progress", job))
                seen_state, seen_iter = self.state, it
            if job is not None and job.get("state") in TERMINAL:
                return job
            self._pause(delay)
            delay = min(delay * self.factor, self.pmax)


# --------------------------------------------------------------------- CLI --

def _read_spec(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def _print_json(doc: Any) -> None:
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _progress_line(ev: Event) -> None:
    d = ev.data
    if ev.type == "state":
        sys.stderr.write("state: %s\n" % d.get("state"))
    elif ev.type == "progress":
        p = d.get("progress", d)  # polling passes the job resource

        def num(k):
            v = p.get(k)
            return "%.6g" % v if isinstance(v, (int, float)) and math.isfinite(v) else "-"
        sys.stderr.write("iteration %s  elapsed %ss  g(x) %s  f(x) %s  gap %s\n"
                         % (p.get("iteration"), num("elapsed"), num("g_x"), num("f_x"),
                            num("gap")))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m ircg_client",
                                description="Talk to an ircgd solver service.")
    p.add_argument("--url", default=os.environ.get("IRCG_URL", "http://127.0.0.1:8080"),
                   help="base URL (IRCG_URL, default http://127.0.0.1:8080)")
    p.add_argument("--token", default=os.environ.get("IRCG_TOKEN"),
                   help="bearer token (IRCG_TOKEN)")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")
    sub.required = True
    s = sub.add_parser("submit", help="submit a job spec (a file, or - for stdin)")
    s.add_argument("spec")
    s.add_argument("--key", help="Idempotency-Key")
    s.add_argument("--dry-run", action="store_true", help="validate only")
    s.add_argument("--wait", action="store_true", help="then wait for the job")
    for name, hlp in (("status", "the job resource"), ("result", "the result document"),
                      ("cancel", "cancel a job"), ("delete", "delete a finished job"),
                      ("snapshots", "list a job's snapshots")):
        sub.add_parser(name, help=hlp).add_argument("id")
    w = sub.add_parser("wait", help="follow a job until it finishes (progress on stderr)")
    w.add_argument("id")
    w.add_argument("--poll", action="store_true", help="poll instead of following events")
    w.add_argument("--timeout", type=float, default=0, help="seconds (0 = none)")
    t = sub.add_parser("trace", help="the objective trace")
    t.add_argument("id")
    t.add_argument("--csv", action="store_true")
    t.add_argument("--after", type=int, default=0, help="rows with t > AFTER")
    t.add_argument("--limit", type=int)
    ls = sub.add_parser("list", help="list jobs")
    ls.add_argument("--state", choices=STATES)
    u = sub.add_parser("upload", help="upload a ratings or Matrix Market file")
    u.add_argument("file")
    u.add_argument("--format", choices=("auto", "movielens", "udata", "csv", "matrix_market"))
    sub.add_parser("version", help="versions of the server and its libraries")
    sub.add_parser("health", help="liveness and readiness")
    return p


def _wait_and_print(c: Client, id: str, poll: bool, timeout: float) -> int:
    job = c.wait(id, timeout=timeout, mode="poll" if poll else "events",
                 on_event=_progress_line)
    _print_json(job)
    return 0 if job.get("state") == "succeeded" else 4


def main(argv: Optional[List[str]] = None) -> int:
    """Exit status: 0 done (wait: the job succeeded), 1 the request failed,
    2 usage, 3 wait timed out, 4 the job failed or was cancelled."""
    a = _parser().parse_args(argv)
    try:
        c = Client(a.url, a.token)
        if a.cmd == "submit":
            job = c.submit(_read_spec(a.spec), a.key, a.dry_run)
            if a.wait and not a.dry_run:
                sys.stderr.write("submitted %s\n" % job["id"])
                return _wait_and_print(c, job["id"], False, 0)
            _print_json(job)
        elif a.cmd == "status":
            _print_json(c.job(a.id))
        elif a.cmd == "wait":
            return _wait_and_print(c, a.id, a.poll, a.timeout)
        elif a.cmd == "result":
            _print_json(c.result(a.id))
        elif a.cmd == "cancel":
            _print_json(c.cancel(a.id))
        elif a.cmd == "delete":
            c.delete(a.id)
        elif a.cmd == "snapshots":
            _print_json(c.snapshots(a.id))
        elif a.cmd == "trace":
            tr = c.trace(a.id, a.after, a.limit, "csv" if a.csv else "json")
            if a.csv:
                sys.stdout.write(tr)
            else:
                _print_json(tr)
        elif a.cmd == "list":
            _print_json(list(c.iter_jobs(a.state)))
        elif a.cmd == "upload":
            with open(a.file, "rb") as f:
                _print_json(c.upload_dataset(f.read(), a.format))
        elif a.cmd == "version":
            _print_json(c.version())
        elif a.cmd == "health":
            _print_json({"health": c.health(), "ready": c.ready()})
    except WaitTimeout as e:
        sys.stderr.write("ircg_client: %s\n" % e)
        return 3
    except IrcgError as e:
        sys.stderr.write("ircg_client: %s\n" % e)
        for pointer, reason in e.errors:
            sys.stderr.write("  %s: %s\n" % (pointer or "(body)", reason))
        return 1
    except (OSError, ValueError) as e:
        sys.stderr.write("ircg_client: %s\n" % e)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
