"""Server-Sent Events: a job's events read from an HTTP response."""

import http.client
import json
import socket
import time
from typing import Any, Dict, Iterator, List, Optional

from .errors import WaitTimeout

# The server sends a heartbeat every 15 s: this long without a byte means
# the event stream is dead.
STREAM_IDLE = 45.0


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


def _event(eid: int, etype: str, data: List[str]) -> Event:
    try:
        doc = json.loads("\n".join(data))
    except ValueError:
        doc = {}
    return Event(eid, etype or "message", doc if isinstance(doc, dict) else {})


def read_events(sock: socket.socket, resp: http.client.HTTPResponse,
                deadline: Optional[float]) -> Iterator[Event]:
    """The events of one stream until "end", a close, or STREAM_IDLE of
    silence (returns; the caller reconnects); past deadline (a
    time.monotonic() value) raises WaitTimeout."""
    etype, data, eid = "", [], 0  # type: str, List[str], int
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WaitTimeout("the deadline passed")
            sock.settimeout(min(STREAM_IDLE, left))
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
                yield _event(eid, etype, data)
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
