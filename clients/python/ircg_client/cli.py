"""python3 -m ircg_client (or ircg-client): the client as a command."""

import argparse
import json
import math
import os
import sys
from typing import Any, List, Optional

from .client import STATES, Client
from .errors import IrcgError, WaitTimeout
from .sse import Event

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
    t.add_argument("--limit", type=int, help="one page of at most LIMIT rows (default: every row)")
    ls = sub.add_parser("list", help="list jobs")
    ls.add_argument("--state", choices=STATES)
    u = sub.add_parser("upload", help="upload a file as a dataset (ratings, a matrix, a vector)")
    u.add_argument("file")
    u.add_argument("--format", choices=("auto", "npy", "npz", "libsvm", "matrix_market", "csv",
                                        "movielens", "udata"))
    u.add_argument("--kind", choices=("ratings", "matrix", "vector"),
                   help="what it holds (default: told by the server from the content)")
    sub.add_parser("version", help="versions of the server and its libraries")
    sub.add_parser("health", help="liveness and readiness")
    return p


def _print_trace(c: Client, a: argparse.Namespace) -> None:
    """One page with --limit; else every row (JSON lines, or CSV)."""
    if a.limit is not None:
        tr = c.trace_page(a.id, a.after, a.limit, "csv" if a.csv else "json")
        if isinstance(tr, str):
            sys.stdout.write(tr)
        else:
            _print_json(tr)
    elif a.csv:
        tr = c.trace_page(a.id, a.after, None, "csv")
        assert isinstance(tr, str)
        sys.stdout.write(tr)
    else:
        for row in c.trace_rows(a.id, a.after):
            sys.stdout.write(json.dumps(row) + "\n")


def _wait_and_print(c: Client, id: str, poll: bool, timeout: float) -> int:
    job = c.wait(id, timeout=timeout, mode="poll" if poll else "events",
                 on_event=_progress_line)
    _print_json(job)
    for w in Client.warnings(job):  # on stderr; the exit status is the job's
        sys.stderr.write("ircg_client: warning (%s): %s\n" % (w["code"], w["message"]))
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
            _print_trace(c, a)
        elif a.cmd == "list":
            _print_json(list(c.iter_jobs(a.state)))
        elif a.cmd == "upload":  # streamed from the disk
            _print_json(c.upload_file(a.file, a.format, a.kind))
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
