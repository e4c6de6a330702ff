"""``.. runcode::``: run a block of Python when the docs are built and show the code and
what it printed, so that every number a page quotes comes from the library itself.

The blocks of one page share a namespace, in order (a later block sees the names an
earlier one made), and a temporary working directory (a file one block writes, the next
reads), with matplotlib's Agg backend. An exception, or anything written to stderr (a
warning), fails the build with the page and line: a page never shows a number the code
did not print.

On the pages of the user guide (and the getting-started page) every number the prose
quotes with a decimal point or an exponent (0.6459, 3.8e-5, 97.5) must be one the page's
blocks printed or wrote in their code (to the digits quoted): a number typed by hand
that no code gives is a warning, so the build fails (``-W``).

Options: ``:hide-code:`` shows only the output; ``:hide-output:`` only the code;
``:figures:`` shows the matplotlib figures the block left open (then closes them), saved
as PNG under ``_runcode/`` in the source folder (made at build time, not kept).

.. code-block:: rst

    .. runcode::

       import bayesrule
       print(bayesrule.bayes([0.4, 0.6], [0.75, 0.25])[0].round(4))
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from docutils import nodes  # noqa: E402
from docutils.parsers.rst import directives  # noqa: E402
from sphinx.errors import ExtensionError  # noqa: E402
from sphinx.util import logging  # noqa: E402
from sphinx.util.docutils import SphinxDirective  # noqa: E402

logger = logging.getLogger(__name__)

#: the pages whose quoted numbers are checked
CHECKED = re.compile(r"^(guide/|getting_started$|index$)")
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)(?!\w|\.\d)")


@dataclass
class _Page:
    """What the blocks of one page share: their names, their working directory, and the
    text of their code and of what they printed (for the check of quoted numbers)."""

    namespace: dict = field(default_factory=lambda: {"__name__": "__docs__"})
    folder: tempfile.TemporaryDirectory = field(
        default_factory=lambda: tempfile.TemporaryDirectory(prefix="runcode-")
    )
    shown: list[str] = field(default_factory=list)


#: per document being read, its page's state
_PAGES: dict[str, _Page] = {}


class RunCode(SphinxDirective):
    has_content = True
    option_spec = {
        "hide-code": directives.flag,
        "hide-output": directives.flag,
        "figures": directives.flag,
    }

    def run(self):
        code = "\n".join(self.content)
        page = _PAGES.setdefault(self.env.docname, _Page())
        where = f"{self.env.docname}.rst, line {self.lineno}"
        out, err = io.StringIO(), io.StringIO()
        here = os.getcwd()
        os.chdir(page.folder.name)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                exec(compile(code, f"<{where}>", "exec"), page.namespace)
        except Exception as exc:
            raise ExtensionError(
                f"{where}: the runcode block failed\n{traceback.format_exc()}"
            ) from exc
        finally:
            os.chdir(here)
        if err.getvalue().strip():  # a warning, a library's complaint: the page is wrong
            raise ExtensionError(f"{where}: the runcode block wrote to stderr:\n{err.getvalue()}")
        printed = out.getvalue().rstrip()
        page.shown += [code, printed]
        result = []
        if "hide-code" not in self.options:
            result.append(nodes.literal_block(code, code, language="python"))
        if printed and "hide-output" not in self.options:
            shown = nodes.literal_block(printed, printed, language="none")
            shown["classes"].append("runcode-output")
            result.append(shown)
        if "figures" in self.options:
            result += self._figures()
        plt.close("all")  # a figure left unshown is not passed to the next block either
        return result

    def _figures(self) -> list:
        folder = Path(self.env.srcdir) / "_runcode"
        folder.mkdir(exist_ok=True)
        images = []
        for number in plt.get_fignums():
            name = f"{self.env.docname.replace('/', '-')}-{self.lineno}-{number}.png"
            plt.figure(number).savefig(folder / name, dpi=100, bbox_inches="tight")
            images.append(nodes.image(uri=f"/_runcode/{name}", alt=f"figure {number}"))
        return images


def _matches(quoted: str, shown: list[float]) -> bool:
    """Whether a number quoted as ``quoted`` is one of ``shown`` to the quoted digits."""
    value = float(quoted)
    mantissa, _, exponent = quoted.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    step = 10.0 ** (-decimals) * 10.0 ** int(exponent or 0)
    return any(abs(x - value) <= 0.5 * step * (1 + 1e-9) for x in shown)


#: text inside these is code or a formula, not a quoted number
_NOT_PROSE = (nodes.literal_block, nodes.literal, nodes.math, nodes.math_block, nodes.raw)


def _check_numbers(app, doctree):
    docname = app.env.docname
    if not CHECKED.match(docname):
        return
    page = _PAGES.get(docname)
    texts = page.shown if page is not None else []
    shown = [float(n) for text in texts for n in NUMBER.findall(text)]
    for paragraph in doctree.findall(nodes.paragraph):
        for text in paragraph.findall(nodes.Text):
            if isinstance(text.parent, _NOT_PROSE):
                continue
            for quoted in NUMBER.findall(str(text)):
                if not _matches(quoted, shown):
                    logger.warning(
                        "%s quotes %s, which no runcode block on the page prints or uses",
                        docname,
                        quoted,
                        location=paragraph,
                    )


def _forget(app, env, docname):
    page = _PAGES.pop(docname, None)
    if page is not None:
        page.folder.cleanup()


def setup(app):
    app.add_directive("runcode", RunCode)
    app.connect("env-purge-doc", _forget)
    app.connect("doctree-read", _check_numbers)
    return {"version": "1", "parallel_read_safe": False, "parallel_write_safe": True}
