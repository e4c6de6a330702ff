"""Build one or more pages of the docs on their own, fast, as ``make docs`` would check
them (warnings are errors, every ``runcode`` block runs): no gallery, no API pages.

Usage: ``.venv/bin/python docs/check_page.py docs/guide/priors.rst [more pages]``;
prints where the HTML went and every block's output is in it.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from sphinx.cmd.build import build_main

HERE = Path(__file__).resolve().parent


def main(pages: list[str]) -> int:
    root = Path(tempfile.mkdtemp(prefix="bayesrule-page-"))
    source = root / "source"
    source.mkdir()
    names = []
    for page in pages:
        page = Path(page).resolve()
        target = source / page.relative_to(HERE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(page, target)
        names.append(str(page.relative_to(HERE).with_suffix("")))
    toctree = "\n".join(f"   {name}" for name in names)
    (source / "index.rst").write_text(f"Pages\n=====\n\n.. toctree::\n\n{toctree}\n")
    (source / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(HERE / '_ext')!r})\n"
        "extensions = ['sphinx.ext.mathjax', 'runcode']\n"
        "html_theme = 'alabaster'\n"
    )
    out = root / "html"
    code = build_main(["-W", "--keep-going", "-q", "-b", "html", str(source), str(out)])
    print(f"HTML in {out}" if code == 0 else "FAILED")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
