"""The errors of ircg_client: every failure is an IrcgError."""

import json
from typing import Any, Dict, List, Optional, Tuple


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
    """wait() or watch(): the job did not finish before the deadline."""


class WaitStopped(IrcgError):
    """wait(): the on_event callback returned True."""


def http_error(status: int, body: bytes, headers: Any) -> IrcgError:
    """The IrcgError of a 4xx/5xx answer."""
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
