"""Screenshots of built pages in headless Chromium, to look at what ``make docs`` made.

Usage: ``.venv/bin/python docs/screenshots.py [PAGE ...]`` (paths under
``docs/_build/html``; default: the gallery, the fruit tutorial example, the decisions page
of the guide and AODE's API page); writes ``docs/screenshots/<page>.png`` and prints each
path. Needs ``chromium`` (Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUILT = HERE / "_build" / "html"
PAGES = [
    "auto_examples/index.html",
    "auto_examples/plot_fruit_tutorial.html",
    "guide/decisions.html",
    "api/generated/bayesrule.AODE.html",
]


def main(pages: list[str]) -> int:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("no chromium: apt-get install chromium", file=sys.stderr)
        return 1
    out = HERE / "screenshots"
    out.mkdir(exist_ok=True)
    for page in pages or PAGES:
        source = BUILT / page
        if not source.exists():
            print(f"{source} is not built: make docs", file=sys.stderr)
            return 1
        target = out / (page.replace("/", "-").removesuffix(".html") + ".png")
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--window-size=1280,4200",
                f"--screenshot={target}",
                source.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
