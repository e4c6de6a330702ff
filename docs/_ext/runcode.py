"""``.. runcode::``: run a block of Python when the docs are built and show the code and
what it printed, so that every number a page quotes comes from the library itself.

The blocks of one page share a namespace, in order (a later block sees the names an
earlier one made), and run in the page's folder-free temporary directory with
matplotlib's Agg backend. An exception fails the build with the page, line and
traceback: a page never shows a number the code did not print.

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
import tempfile
import traceback
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

#: per document, the namespace its blocks share
_NAMESPACES: dict[str, dict] = {}


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
        out = io.StringIO()
        here = os.getcwd()
        with tempfile.TemporaryDirectory() as folder:
            os.chdir(folder)
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                    exec(
                        compile(code, f"<{self.env.docname}.rst:{self.lineno}>", "exec"), namespace
                    )
            except Exception as exc:
                raise ExtensionError(
                    f"{self.env.docname}.rst, line {self.lineno}: the runcode block failed\n"
                    + traceback.format_exc()
                ) from exc
            finally:
                os.chdir(here)
        result = []
        if "hide-code" not in self.options:
            block = nodes.literal_block(code, code, language="python")
            result.append(block)
        printed = out.getvalue().rstrip()
        if printed and "hide-output" not in self.options:
            shown = nodes.literal_block(printed, printed, language="none")
            shown["classes"].append("runcode-output")
            result.append(shown)
        if "figures" in self.options:
            result += self._figures()
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


def _forget(app, env, docname):
    _NAMESPACES.pop(docname, None)


def setup(app):
    import matplotlib

    matplotlib.use("Agg")
    app.add_directive("runcode", RunCode)
    app.connect("env-purge-doc", _forget)
    return {"version": "1", "parallel_read_safe": False, "parallel_write_safe": True}
