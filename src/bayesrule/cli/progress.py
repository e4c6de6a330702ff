"""What a long command is doing, on stderr: a bar or a status line on a terminal, and a
line per long stage otherwise.

:class:`Progress` is a bar drawn in place (carriage returns), only when stderr is a
terminal. :class:`Status` names the stages of a command (reading, fitting, predicting,
...): on a terminal as a status line redrawn in place with the time spent, erased when
the stage ends; when stderr is not a terminal (a log, a pipe), as one line
``bayesrule <command>: <stage> ...`` for each stage still running after
:data:`STAGE_DELAY` seconds, and a line with its time when it ends, so that short runs
stay silent and long ones say what they do. ``--quiet`` silences both.

Examples
--------
>>> import io
>>> from bayesrule.cli.progress import Progress
>>> stream = io.StringIO()                    # not a terminal: the bar stays silent
>>> with Progress(3, "compare", stream=stream) as bar:
...     for step in ["qda", "lda", "gaussian-nb"]:
...         bar.advance(step)
>>> stream.getvalue()
''
>>> text = Progress(4, "compare", stream=stream, enabled=True).render(1, "qda")
>>> text
'compare [#####...............]   1/4  qda'
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

__all__ = ["STAGE_DELAY", "Progress", "Status", "duration"]

#: a stage running longer than this many seconds is announced when stderr is no terminal
STAGE_DELAY = 2.0


class Progress:
    """A one-line bar ``label [####....] done/total  note``, redrawn in place.

    Parameters
    ----------
    total : int or None
        Number of steps; None draws a counter without a bar (unknown length).
    label : str
        Text before the bar.
    stream : file, default=sys.stderr
    enabled : bool, optional
        Draw the bar; default: only when ``stream`` is a terminal.
    width : int, default=20
        Characters of the bar.
    """

    def __init__(self, total, label: str, *, stream=None, enabled=None, width: int = 20):
        self.total = total
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.width = width
        self.done = 0
        self._shown = 0

    def render(self, done: int, note: str = "") -> str:
        """The text of the bar after ``done`` steps."""
        if self.total:
            filled = int(round(self.width * min(done, self.total) / self.total))
            bar = "#" * filled + "." * (self.width - filled)
            digits = len(str(self.total))
            text = f"{self.label} [{bar}] {done:>{digits + 2}}/{self.total}"
        else:
            text = f"{self.label} {done}"
        return f"{text}  {note}".rstrip()

    def advance(self, note: str = "", steps: int = 1) -> None:
        """Count ``steps`` more steps done and redraw the bar with ``note``."""
        self.done += steps
        self.show(note)

    def show(self, note: str = "") -> None:
        """Redraw the bar (with ``note``) without counting a step."""
        if not self.enabled:
            return
        text = self.render(self.done, note)
        pad = max(self._shown - len(text), 0)
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._shown = len(text)

    def close(self) -> None:
        """Erase the bar, leaving the terminal line empty."""
        if self.enabled and self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self.stream.flush()
            self._shown = 0

    def __enter__(self) -> Progress:
        self.show()
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def duration(seconds: float) -> str:
    """``1.2 s``, ``48 s``, ``8 min 3 s``: a time for people."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def _is_tty(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Status:
    """The stages of a command on stderr (module docstring).

    Parameters
    ----------
    command : str
        The subcommand, e.g. ``"fit"``: lines start ``bayesrule fit: ``.
    quiet : bool, default=False
        Write nothing.
    stream : file, default=sys.stderr (read when a stage starts)
    """

    def __init__(self, command: str, *, quiet: bool = False, stream=None):
        self.prefix = f"bayesrule {command}: "
        self.quiet = quiet
        self._stream = stream
        self._lock = threading.Lock()
        self._shown = 0
        self._note = ""

    @property
    def stream(self):
        return sys.stderr if self._stream is None else self._stream

    @property
    def terminal(self) -> bool:
        """Whether stages are drawn in place (stderr is a terminal and not quiet)."""
        return not self.quiet and _is_tty(self.stream)

    def bar(self, total, label: str) -> Progress:
        """A :class:`Progress` bar on the same stream, drawn on a terminal only."""
        return Progress(total, label, stream=self.stream, enabled=self.terminal)

    def note(self, text: str) -> None:
        """Add ``text`` to the current stage's status line (on a terminal)."""
        self._note = text

    def _draw(self, text: str) -> None:
        with self._lock:
            pad = max(self._shown - len(text), 0)
            self.stream.write("\r" + text + " " * pad)
            self.stream.flush()
            self._shown = len(text)

    def _erase(self) -> None:
        with self._lock:
            if self._shown:
                self.stream.write("\r" + " " * self._shown + "\r")
                self.stream.flush()
                self._shown = 0

    def _line(self, text: str) -> None:
        with self._lock:
            self.stream.write(self.prefix + text + "\n")
            self.stream.flush()

    @contextmanager
    def stage(self, text: str, *, draw: bool = True):
        """Report ``text`` as the stage running inside the ``with`` block; ``draw=False``:
        not on a terminal (where the stage draws its own :class:`Progress` bar)."""
        if self.quiet or (self.terminal and not draw):
            yield self
            return
        start, done = time.perf_counter(), threading.Event()
        self._note = ""
        announced = []
        if self.terminal:

            def tick():
                while True:
                    spent = time.perf_counter() - start
                    note = f" ({self._note})" if self._note else ""
                    self._draw(f"{self.prefix}{text}{note} ... {duration(spent)}")
                    if done.wait(1.0):
                        return

            worker = threading.Thread(target=tick, daemon=True)
        else:

            def announce():
                if not done.wait(STAGE_DELAY):
                    announced.append(True)
                    self._line(f"{text} ...")

            worker = threading.Thread(target=announce, daemon=True)
        if not self.terminal and STAGE_DELAY <= 0:
            announced.append(True)
            self._line(f"{text} ...")
        else:
            worker.start()
        finished = False
        try:
            yield self
            finished = True
        finally:
            done.set()
            if worker.is_alive():
                worker.join()
            if self.terminal:
                self._erase()
            elif announced:
                how = "done in" if finished else "stopped after"
                self._line(f"{text}: {how} {duration(time.perf_counter() - start)}")
