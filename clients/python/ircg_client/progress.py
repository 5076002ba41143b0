"""A job's progress as it solves, from its events: a tqdm bar where tqdm
is installed (tqdm.auto: a widget in a notebook), plain lines on stderr
otherwise (at most one a second, and the end)."""

import math
import sys
import time
from typing import Any, Optional

from .sse import Event


def _num(v: Any) -> str:
    return "%.6g" % v if isinstance(v, (int, float)) and math.isfinite(v) else "-"


class Progress:
    """on_event for Client.wait: enabled False shows nothing; total is the
    spec's max_iter (the bar's length)."""

    def __init__(self, enabled: bool, total: Optional[int], desc: str, stream: Any = None,
                 use_tqdm: Optional[bool] = None):
        self.enabled = enabled
        self.total = total
        self.desc = desc
        self.stream = stream if stream is not None else sys.stderr
        self.bar: Any = None
        self.last_line = 0.0
        self.done = 0
        self.state = ""
        if not enabled:
            return
        tqdm = None
        if use_tqdm is not False:
            try:
                from tqdm.auto import tqdm  # type: ignore[import-not-found]  # optional
            except ImportError:
                tqdm = None
        if tqdm is not None:
            self.bar = tqdm(total=total, desc=desc, unit="it", file=self.stream,
                            dynamic_ncols=True)

    def __call__(self, ev: Event) -> None:
        if not self.enabled:
            return
        d = ev.data
        if ev.type == "state":
            state = self.state = d.get("state", "")
            if self.bar is not None:
                self.bar.set_description("%s (%s)" % (self.desc, state))
            else:
                self.stream.write("%s: %s\n" % (self.desc, state))
            return
        if ev.type != "progress":
            return
        p = d.get("progress", d)  # polling passes the job resource
        it = int(p.get("iteration") or 0)
        if self.bar is not None:
            if it > self.done:
                self.bar.update(it - self.done)
                self.done = it
            self.bar.set_postfix(g=_num(p.get("g_x")), f=_num(p.get("f_x")),
                                 gap=_num(p.get("gap")), refresh=False)
            return
        now = time.monotonic()
        if now - self.last_line >= 1.0 or (self.total and it >= self.total):
            self.last_line = now
            self.stream.write("%s: iteration %d%s  g(x) %s  f(x) %s  gap %s\n"
                              % (self.desc, it, "/%d" % self.total if self.total else "",
                                 _num(p.get("g_x")), _num(p.get("f_x")), _num(p.get("gap"))))
        self.done = it

    def close(self, job: Optional[dict] = None) -> None:
        if not self.enabled:
            return
        state = (job or {}).get("state", "")
        p = (job or {}).get("progress") or {}
        if self.bar is not None:
            it = int(p.get("iteration") or self.done)
            if it > self.done:
                self.bar.update(it - self.done)
            if p:  # the last values, not the last event's
                self.bar.set_postfix(g=_num(p.get("g_x")), f=_num(p.get("f_x")),
                                     gap=_num(p.get("gap")), refresh=False)
            self.bar.set_description("%s (%s)" % (self.desc, state))
            self.bar.close()
        elif state and state != self.state:
            self.stream.write("%s: %s\n" % (self.desc, state))
