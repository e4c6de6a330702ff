"""The README's tour runs as written and prints the seed's numbers."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has no python block"
    return blocks


def tour_code() -> str:
    return python_blocks()[0]


def run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {})
    return out.getvalue()


def test_readme_starts_with_the_two_commands():
    head = README.read_text().split("## ")[0]
    assert head.index("make demo") < head.index("make test")


def test_tour_runs_and_prints_the_decisions():
    text = run(tour_code())
    assert "['apple']" in text and "['orange']" in text
    assert "Overall" in text and "Reject (%)" in text
    assert "w0 (intercept_)" in text
    assert len(tour_code().strip().splitlines()) <= 22


def test_naive_bayes_example_reproduces_the_seeds():
    text = run(python_blocks()[1])
    assert "['Sports']" in text
    assert "['P']" in text
    assert "('gaussian', ['length'])" in text and "('categorical', ['colour'])" in text


def test_semi_naive_example_beats_naive_bayes_and_finds_the_pairs():
    text = run(python_blocks()[2])
    losses = dict(line.split() for line in text.splitlines()[:4])
    for name in ("AODE", "TAN", "KDB"):
        assert float(losses[name]) < float(losses["CategoricalNB"]) - 0.05
    structure = text.splitlines()[4]
    for k in range(3):
        assert f"a{k} <- class, b{k}'" in structure or f"b{k} <- class, a{k}'" in structure


def test_deciding_example_runs_every_rule():
    text = run(python_blocks()[3])
    lines = text.strip().splitlines()
    assert len(lines) == 6
    false_alarm, detection = map(float, lines[1].split())
    assert false_alarm <= 0.05 and detection > 0.8
    assert "[0." in lines[2] and "[0." in lines[3]


def test_out_of_core_example_at_a_small_scale(tmp_path, monkeypatch):
    """The README's Dask example, with 40,000 rows instead of 8 million: the lazy model
    equals the model fitted on the arrays in memory."""
    code = python_blocks()[4]
    assert "N_ROWS, D, STEP = 8_000_000, 20, 250_000" in code
    code = code.replace("8_000_000, 20, 250_000", "40_000, 20, 7_000")
    code = code.replace('if __name__ == "__main__":', "if True:")
    code = code.replace('memory_limit="400MiB"', 'memory_limit="400MiB", dashboard_address=":0"')
    assert 'dashboard_address=":0"' in code
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "readme"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), namespace)
    import numpy as np

    from bayesrule import GaussianNB, MultinomialNB

    X, y = np.load("features.npy"), np.load("labels.npy")
    for lazy in (namespace["gnb"], namespace["mnb"]):
        eager = type(lazy)().fit(X, y)
        np.testing.assert_allclose(lazy.class_count_, eager.class_count_)
        np.testing.assert_allclose(
            lazy.predict_joint_log_proba(X[:500]),
            eager.predict_joint_log_proba(X[:500]),
            rtol=1e-10,
        )
    assert isinstance(namespace["gnb"], GaussianNB) and isinstance(namespace["mnb"], MultinomialNB)
