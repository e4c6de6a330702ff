"""The error the ``bayesrule`` command reports as one line, without a traceback."""

from __future__ import annotations


class CLIError(Exception):
    """A mistake in the command's input, explained for people.

    ``main`` prints ``bayesrule <command>: error: <message>`` on stderr and exits with
    status 2 (``--debug`` shows the traceback instead).
    """
