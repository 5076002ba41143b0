"""ircg_client -- a Python client of the ircgd solver service.

Standard library only at run time (http.client, json); Python 3.9 or
newer.  NumPy, SciPy, pandas, tqdm and scikit-learn are used when they are
installed: problems built from NumPy arrays, SciPy sparse matrices and
pandas objects, answers as arrays, trace() a DataFrame, a tqdm progress
bar, and scikit-learn estimators (ircg_client.sklearn).

    from ircg_client import Client, least_squares
    c = Client("http://127.0.0.1:8080")
    sol = c.solve(least_squares(A, b, domain="l1_ball", radius=10.0,
                                A_val=A2, b_val=b2),
                  stop={"inner_gap_rel": 1e-3}, max_iter=5000)
    sol.x, sol.z, sol.certificate, sol.status, sol.trace

The service, spec by spec:

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
from .problems import Problem, least_squares, logistic_regression, matrix_completion
from .solution import IrcgWarning, JobFailed, LowRank, Solution
from .sse import Event
from .wait import TERMINAL

__all__ = ["Client", "Event", "IrcgError", "IrcgWarning", "JobFailed", "LowRank", "Problem",
           "ProtocolError", "Solution", "TransportError", "WaitStopped", "WaitTimeout",
           "STATES", "TERMINAL", "least_squares", "logistic_regression", "main",
           "matrix_completion", "__version__"]
