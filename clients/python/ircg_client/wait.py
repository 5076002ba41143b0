"""Waiting for a job: following its events, or polling it."""

import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, Optional

from .errors import IrcgError, TransportError, WaitStopped, WaitTimeout
from .sse import Event

if TYPE_CHECKING:
    from .client import Client

TERMINAL = ("succeeded", "failed", "cancelled")


class Waiter:
    """The state of one Client.wait() or Client.watch().  Every request it
    makes is bounded by the deadline, so a timeout is honoured to the
    moment, whatever the server or the network do."""

    def __init__(self, client: "Client", id: str, timeout: Optional[float],
                 on_event: Optional[Callable[[Event], Any]] = None,
                 p0: float = 0.05, pmax: float = 2.0, factor: float = 1.5,
                 max_failures: int = 3):
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
        if isinstance(e, WaitTimeout):
            raise self._timeout() from None
        if not (isinstance(e, TransportError) or e.status >= 500):
            raise e
        self.failures += 1
        if self.failures > self.max_failures:
            raise e
        self._pause(min(self.p0 * self.factor ** (self.failures - 1), self.pmax))

    def _timeout(self) -> WaitTimeout:
        return WaitTimeout("job %s not finished after %g s (last state %s)"
                           % (self.id, self.timeout or 0, self.state))

    def _job(self) -> Dict[str, Any]:
        return self.c._call("GET", "/v1/jobs/" + self.c._quote(self.id),
                            deadline=self.deadline).json()

    def events(self) -> Iterator[Event]:
        """Every event of the job, from its first, across reconnections
        (Last-Event-ID), until its "end" event (included)."""
        last_id = 0
        while True:
            seen = 0
            try:
                for ev in self.c.events(self.id, last_id, self.deadline):
                    last_id = ev.id
                    seen += 1
                    self.state = ev.data.get("state", self.state)
                    yield ev
                    if ev.type == "end":
                        return
            except IrcgError as e:
                self._tolerate(e)
                continue
            # closed before "end": a shutdown, a proxy, or nothing left to say
            if seen:
                self.failures = 0
            try:
                job = self._job()
            except IrcgError as e:
                self._tolerate(e)
                continue
            if job.get("state") in TERMINAL:
                return
            self._pause(self.pmax)

    def follow(self) -> Dict[str, Any]:
        for ev in self.events():
            if ev.type != "end":
                self._notify(ev)
        while True:
            try:
                return self._job()
            except IrcgError as e:
                self._tolerate(e)

    def poll(self) -> Dict[str, Any]:
        delay, etag, job = self.p0, None, None
        seen_state, seen_iter = None, None
        while True:
            try:
                r = self.c._call("GET", "/v1/jobs/" + self.c._quote(self.id), ok=(200, 304),
                                 headers={"If-None-Match": etag} if etag else None,
                                 deadline=self.deadline)
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
