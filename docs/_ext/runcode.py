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
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

#: per document, the namespace its blocks share and their working directory
_NAMESPACES: dict[str, dict] = {}
#: per document, the text of its blocks' code and of what they printed
_SHOWN: dict[str, list[str]] = {}
#: the pages whose quoted numbers are checked
CHECKED = re.compile(r"^(guide/|getting_started$|index$)")
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)(?!\w|\.\d)")
_FOLDERS: dict[str, tempfile.TemporaryDirectory] = {}


class RunCode(SphinxDirective):
    has_content = True
    option_spec = {
        "hide-code": directives.flag,
        "hide-output": directives.flag,
        "figures": directives.flag,
    }

    def run(self):
        code = "\n".join(self.content)
        namespace = _NAMESPACES.setdefault(self.env.docname, {"__name__": "__docs__"})
        out, err = io.StringIO(), io.StringIO()
        here = os.getcwd()
        if self.env.docname not in _FOLDERS:
            _FOLDERS[self.env.docname] = tempfile.TemporaryDirectory(prefix="runcode-")
        folder = _FOLDERS[self.env.docname]
        os.chdir(folder.name)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                exec(compile(code, f"<{self.env.docname}.rst:{self.lineno}>", "exec"), namespace)
        except Exception as exc:
            raise ExtensionError(
                f"{self.env.docname}.rst, line {self.lineno}: the runcode block failed\n"
                + traceback.format_exc()
            ) from exc
        finally:
            os.chdir(here)
        if err.getvalue().strip():  # a warning, a library's complaint: the page is wrong
            raise ExtensionError(
                f"{self.env.docname}.rst, line {self.lineno}: the runcode block wrote to "
                f"stderr:\n{err.getvalue()}"
            )
        result = []
        if "hide-code" not in self.options:
            block = nodes.literal_block(code, code, language="python")
            result.append(block)
        printed = out.getvalue().rstrip()
        _SHOWN.setdefault(self.env.docname, []).extend([code, printed])
        if printed and "hide-output" not in self.options:
            shown = nodes.literal_block(printed, printed, language="none")
            shown["classes"].append("runcode-output")
            result.append(shown)
        if "figures" in self.options:
            result += self._figures()
        else:  # a figure a block leaves open is not shown, nor passed to the next block
            import matplotlib.pyplot as plt

            plt.close("all")
        return result

    def _figures(self) -> list:
        import matplotlib.pyplot as plt

        folder = Path(self.env.srcdir) / "_runcode"
        folder.mkdir(exist_ok=True)
        images = []
        for number in plt.get_fignums():
            name = f"{self.env.docname.replace('/', '-')}-{self.lineno}-{number}.png"
            plt.figure(number).savefig(folder / name, dpi=100, bbox_inches="tight")
            images.append(nodes.image(uri=f"/_runcode/{name}", alt=f"figure {number}"))
        plt.close("all")
        return images


def _matches(quoted: str, shown: list[float]) -> bool:
    """Whether a number quoted as ``quoted`` is one of ``shown`` to the quoted digits."""
    value = float(quoted)
    mantissa, _, exponent = quoted.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    step = 10.0 ** (-decimals) * 10.0 ** int(exponent or 0)
    return any(abs(x - value) <= 0.5 * step * (1 + 1e-9) for x in shown)


def _check_numbers(app, doctree):
    docname = app.env.docname
    if not CHECKED.match(docname):
        return
    shown = [float(n) for text in _SHOWN.get(docname, []) for n in NUMBER.findall(text)]
    skip = (nodes.literal_block, nodes.literal, nodes.math, nodes.math_block, nodes.raw)
    for paragraph in doctree.findall(nodes.TextElement):
        if isinstance(paragraph, skip) or not isinstance(paragraph, nodes.paragraph):
            continue
        for text in paragraph.findall(nodes.Text):
            if any(isinstance(parent, skip) for parent in _parents(text)):
                continue
            for quoted in NUMBER.findall(str(text)):
                if not _matches(quoted, shown):
                    logger.warning(
                        "%s quotes %s, which no runcode block on the page prints or uses",
                        docname,
                        quoted,
                        location=paragraph,
                    )


def _parents(node):
    while node.parent is not None:
        node = node.parent
        yield node


def _forget(app, env, docname):
    _NAMESPACES.pop(docname, None)
    _SHOWN.pop(docname, None)
    folder = _FOLDERS.pop(docname, None)
    if folder is not None:
        folder.cleanup()


def setup(app):
    import matplotlib

    matplotlib.use("Agg")
    app.add_directive("runcode", RunCode)
    app.connect("env-purge-doc", _forget)
    app.connect("doctree-read", _check_numbers)
    return {"version": "1", "parallel_read_safe": False, "parallel_write_safe": True}
