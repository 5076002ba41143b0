"""ircg_client -- a Python client of the ircgd solver service.

Standard library only at run time (http.client, json); Python 3.9 or
newer; pandas, when installed, makes trace() a DataFrame.

    from ircg_client import Client, IrcgError
    c = Client("http://127.0.0.1:8080", token=None)
    job = c.submit(spec)                  # spec: a dict or a JSON string
    for ev in c.watch(job["id"]):         # every event, "end" last
        print(ev.type, ev.data)
    job = c.wait(job["id"], timeout=60)   # or just wait (WaitTimeout at 60 s)
    rows = c.trace(job["id"])             # every row (a DataFrame with pandas)
    result = c.result(job["id"])

Every failure raises IrcgError (or a subclass) carrying the HTTP status (0
when no answer came), and for an application/problem+json answer its type,
title, detail and the (pointer, reason) pairs of its "errors" list.

A Client holds no connection between calls (each request opens its own), so
one Client may be shared by threads; a wait() runs in the calling thread.

As a command:  python3 -m ircg_client [--url URL] [--token T] COMMAND ...
(or `ircg-client` once installed; run it with --help).
"""

from .cli import main
from .client import STATES, Client, __version__
from .errors import IrcgError, ProtocolError, TransportError, WaitStopped, WaitTimeout
from .sse import Event
from .wait import TERMINAL

__all__ = ["Client", "Event", "IrcgError", "ProtocolError", "TransportError", "WaitStopped",
           "WaitTimeout", "STATES", "TERMINAL", "main", "__version__"]
