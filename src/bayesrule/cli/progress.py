"""A progress bar for long work (reading big files, EM, ``compare``), on a terminal only.

The bar is drawn on stderr and only when stderr is a terminal, so output that is piped
or redirected (and every test) stays clean: nothing is written at all.

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

__all__ = ["Progress"]


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
