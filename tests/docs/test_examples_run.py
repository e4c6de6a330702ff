"""Every script in ``examples/`` runs as a user runs it: ``python examples/x.py`` in an
empty directory, matplotlib drawing off screen, exit status 0, no traceback and no
warning on stderr. The gallery's scripts (``plot_*.py``) also make at least one figure
(the docs show them). Slow: a few seconds each, in CI all the same."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))
#: arguments that keep the two older scripts within seconds (both print Markdown tables)
ARGS = {"seminaive_compare.py": ["--folds", "3", "--datasets", "iris", "wine"]}


def test_the_gallery_has_at_least_fifteen_examples():
    assert len([s for s in SCRIPTS if s.name.startswith("plot_")]) >= 15
    assert (EXAMPLES / "README.txt").exists()  # the gallery's front page


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_runs(script, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    env["MPLBACKEND"] = "Agg"
    code = ""
    if script.name.startswith("plot_"):  # and count the figures it leaves open
        code = (
            "import runpy, sys, matplotlib.pyplot as plt\n"
            f"runpy.run_path({str(script)!r}, run_name='__main__')\n"
            "print('figures:', len(plt.get_fignums()))\n"
        )
    command = [sys.executable, "-c", code] if code else [sys.executable, str(script)]
    done = subprocess.run(
        [*command, *ARGS.get(script.name, [])],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "arning" not in done.stderr, done.stderr[-3000:]
    assert done.stdout.strip(), "the example prints nothing"
    if code:
        figures = int(done.stdout.strip().splitlines()[-1].split()[-1])
        assert figures >= 1, "a gallery example must leave a figure for the docs"
