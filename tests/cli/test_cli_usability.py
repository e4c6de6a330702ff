"""The command as a new user meets it (issue 16, items 3, 5 and 8): flags for what the
messages ask for, tables as pandas writes them, errors that name the cell, output files
that are whole or absent, progress on stderr, honest `compare` times, fast start-up."""

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesrule.cli import main
from bayesrule.cli import progress as cli_progress
from bayesrule.cli.models import MODELS
from bayesrule.datasets import fruit
from bayesrule.io import load

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def table(tmp_path, monkeypatch):
    """fruit.csv (60 rows, no index) in the current folder (tmp_path)."""
    monkeypatch.chdir(tmp_path)
    data = fruit(20, random_state=1)
    frame = pd.DataFrame(data.data, columns=data.feature_names)
    frame["fruit"] = data.target
    frame.to_csv("fruit.csv", index=False)
    return frame


def ok(capsys, argv) -> str:
    """Run main(argv): status 0; returns stdout."""
    capsys.readouterr()
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out


def error_of(capsys, argv) -> str:
    """Run main(argv): status 2; the last stderr line is the error (any lines before it
    are stage lines of the same command); returns the error line."""
    capsys.readouterr()
    assert main(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines and lines[-1].startswith(f"bayesrule {argv[0]}: error: "), lines
    assert all(line.startswith(f"bayesrule {argv[0]}: ") for line in lines)
    assert "Traceback" not in "\n".join(lines)
    return lines[-1]


# ----------------------------------------------------------------------- start-up, help
def test_version_imports_neither_scikit_learn_nor_pandas():
    code = (
        "import sys; from bayesrule.cli import main; status = main(['--version']); "
        "print(status, 'sklearn' in sys.modules, 'pandas' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["bayesrule 0.1.0", "0 False False"]


def test_lazy_package_attributes_and_report_both_ways():
    code = (
        "import bayesrule, sys; assert 'sklearn' not in sys.modules; "
        "from bayesrule.report import Report; import bayesrule.report; "
        "print(bayesrule.report.__name__, Report.__name__, bayesrule.GaussianNB.__name__, "
        "'GaussianNB' in bayesrule.__all__, 'report' in dir(bayesrule))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["report", "Report", "GaussianNB", "True", "True"]


def test_fit_help_lists_every_model(capsys):
    out = ok(capsys, ["fit", "--help"])
    listed = out.split("models:")[1].split("Default:")[0]
    names = [n.strip(" .\n") for n in listed.replace("\n", " ").split(",")]
    assert names == list(MODELS)


# ----------------------------------------------------------------------- flags
def test_reg_covar_and_discretize_reach_the_estimator(table, capsys):
    ok(capsys, ["fit", "fruit.csv", "--target", "fruit", "--reg-covar", "0.5", "-o", "q.model"])
    assert load("q.model").reg_covar == 0.5
    argv = ["fit", "fruit.csv", "--target", "fruit", "--model", "aode"]
    ok(capsys, [*argv, "--discretize", "mdl", "-o", "a.model"])
    assert load("a.model").discretize == "mdl"
    err = error_of(capsys, [*argv, "--reg-covar", "1", "-o", "x.model"])
    assert err.endswith(
        "--reg-covar applies to the models qda, lda, gaussian, mixture; not to aode"
    )


def test_predict_decides_under_other_priors_and_loss_without_refitting(table, capsys):
    ok(capsys, ["fit", "fruit.csv", "--target", "fruit", "-o", "m.model"])
    est = load("m.model")
    X = table[["weight_g", "color_nm"]]
    out = ok(
        capsys,
        ["predict", "m.model", "fruit.csv", "--priors", "apple=0.98,orange=0.01,grapefruit=0.01"],
    )
    got = pd.read_csv(io.StringIO(out))["decision"].tolist()
    skewed = {"apple": 0.98, "orange": 0.01, "grapefruit": 0.01}
    assert got == est.predict(X, priors=skewed).tolist()
    assert got != est.predict(X).tolist()
    Path("loss.csv").write_text(
        "action,apple,orange,grapefruit\napple,0,9,9\norange,1,0,1\ngrapefruit,1,1,0\n"
    )
    out = ok(capsys, ["predict", "m.model", "fruit.csv", "--loss", "loss.csv", "--risk"])
    frame = pd.read_csv(io.StringIO(out))
    est.set_params(loss=[[0, 9, 9], [1, 0, 1], [1, 1, 0]])
    assert frame["decision"].tolist() == est.predict(X).tolist()
    risks = [f"R({a})" for a in est.actions_.tolist()]
    np.testing.assert_allclose(frame[risks], est.risk(X), rtol=1e-5, atol=1e-12)


def test_separator_and_quiet(table, capsys):
    table.to_csv("semi.csv", sep=";", index=False)
    capsys.readouterr()
    assert (
        main(["fit", "semi.csv", "--sep", ";", "--target", "fruit", "-o", "s.model", "--quiet"])
        == 0
    )
    captured = capsys.readouterr()
    assert captured.err == "" and "2 features (weight_g, color_nm)" in captured.out


def test_unnamed_index_column_is_not_a_feature_and_predictions_keep_it(table, capsys):
    table.index = range(100, 160)
    table.index = table.index - 100  # pandas' default index 0 .. n-1
    table.to_csv("indexed.csv")  # first header cell empty
    out = ok(capsys, ["fit", "indexed.csv", "--target", "fruit", "-o", "i.model"])
    assert "2 features (weight_g, color_nm)" in out
    assert load("i.model").cli_columns_ == ["weight_g", "color_nm"]
    out = ok(capsys, ["predict", "i.model", "indexed.csv", "--proba"])
    lines = out.splitlines()
    assert lines[0] == ",decision,P(apple),P(grapefruit),P(orange)"
    assert [line.split(",")[0] for line in lines[1:4]] == ["0", "1", "2"]


def test_id_column_and_rounded_probabilities(table, capsys):
    table.insert(0, "name", [f"f{i}" for i in range(len(table))])
    table.to_csv("named.csv", index=False)
    argv = ["fit", "named.csv", "--target", "fruit", "--id-column", "name", "-o", "n.model"]
    assert "2 features (weight_g, color_nm)" in ok(capsys, argv)
    out = ok(capsys, ["predict", "n.model", "named.csv", "--id-column", "name", "--proba"])
    frame = pd.read_csv(io.StringIO(out), dtype=str)
    assert list(frame.columns[:2]) == ["name", "decision"]
    assert frame["name"].tolist() == table["name"].tolist()
    for cell in frame["P(apple)"]:
        digits = re.sub(r"e.*$", "", cell).replace("0.", "", 1).lstrip("0").replace(".", "")
        assert len(digits) <= 6, cell


# ----------------------------------------------------------------------- cells named in errors
def test_a_text_cell_in_a_numeric_column_is_named(table, capsys):
    frame = table.astype({"weight_g": object})
    frame.loc[17, "weight_g"] = "12,5 g"
    frame.to_csv("typo.csv", index=False)
    err = error_of(capsys, ["fit", "typo.csv", "--target", "fruit", "-o", "t.model"])
    assert "column 'weight_g'" in err and "row 18" in err and "'12,5 g'" in err
    assert not Path("t.model").exists()


@pytest.mark.parametrize(
    ("value", "shown"), [(np.inf, "inf"), (-np.inf, "-inf"), (1e300, "1e+300")]
)
def test_bad_numbers_are_named_by_row_column_and_value(table, capsys, value, shown):
    frame = table.copy()
    frame.loc[6, "color_nm"] = value
    frame.to_csv("bad.csv", index=False)
    err = error_of(
        capsys, ["fit", "bad.csv", "--target", "fruit", "--model", "gaussian", "-o", "b"]
    )
    assert "column 'color_nm'" in err and "row 7" in err and shown in err, err
    assert "HistGradientBoosting" not in err and "another estimator" not in err
    ok(capsys, ["fit", "fruit.csv", "--target", "fruit", "--model", "gaussian", "-o", "good.model"])
    err = error_of(capsys, ["predict", "good.model", "bad.csv"])
    assert "column 'color_nm'" in err and "row 7" in err and shown in err, err


# ----------------------------------------------------------------------- output files
def test_a_failed_fit_leaves_no_model_file_and_keeps_an_old_one(table, capsys, monkeypatch):
    from bayesrule import QuadraticDiscriminant

    def refuse(self, *args, **kwargs):
        raise ValueError("refused")

    monkeypatch.setattr(QuadraticDiscriminant, "predict", refuse)
    error_of(capsys, ["fit", "fruit.csv", "--target", "fruit", "-o", "new.model"])
    assert os.listdir(".") == ["fruit.csv"]  # no model, no temporary file
    Path("old.model").write_bytes(b"old")
    error_of(capsys, ["fit", "fruit.csv", "--target", "fruit", "-o", "old.model"])
    assert Path("old.model").read_bytes() == b"old"


def test_plot_writes_the_format_of_the_suffix_or_refuses(table, capsys):
    ok(capsys, ["fit", "fruit.csv", "--target", "fruit", "-o", "m.model"])
    ok(capsys, ["plot", "m.model", "fruit.csv", "-o", "r.jpg", "--dpi", "20"])
    assert Path("r.jpg").read_bytes()[:3] == b"\xff\xd8\xff"  # JPEG
    ok(capsys, ["plot", "m.model", "fruit.csv", "-o", "r.svg", "--dpi", "20"])
    assert b"<svg" in Path("r.svg").read_bytes()[:1000]
    err = error_of(capsys, ["plot", "m.model", "fruit.csv", "-o", "r.docx"])
    assert "'.docx'" in err and ".png" in err and ".jpg" in err
    assert not Path("r.docx").exists()


# ----------------------------------------------------------------------- progress
def test_stage_lines_when_stderr_is_not_a_terminal(table, capsys, monkeypatch):
    monkeypatch.setattr(cli_progress, "STAGE_DELAY", 0.0)  # every stage counts as long
    capsys.readouterr()
    assert main(["fit", "fruit.csv", "--target", "fruit", "-o", "m.model"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "bayesrule fit: reading fruit.csv ..."
    assert any(line.startswith("bayesrule fit: fitting qda on 60 rows ...") for line in err)
    assert any(line.startswith("bayesrule fit: training accuracy") for line in err)
    assert all(line.startswith("bayesrule fit: ") for line in err)
    assert main(["fit", "fruit.csv", "--target", "fruit", "-o", "m.model", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_training_accuracy_on_a_bounded_sample_said_so(table, capsys, monkeypatch):
    from bayesrule.cli import fit as cli_fit

    monkeypatch.setattr(cli_fit, "TRAINING_SAMPLE", 25, raising=False)
    out = ok(capsys, ["fit", "fruit.csv", "--target", "fruit", "-o", "m.model"])
    assert re.search(r"Training accuracy: \d+\.\d % \(on a random 25 of the 60 rows\)", out)


def test_compare_times_fit_and_predict_apart_and_skips_models(table, capsys):
    argv = ["compare", "fruit.csv", "--target", "fruit", "--cv", "3"]
    out = ok(capsys, [*argv, "--skip", "kernel-nb,mixture,nearest-mean"])
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("rank"))
    assert "fit (ms)" in lines[header] and "predict (ms)" in lines[header]
    models = [line.split()[1] for line in lines[header + 2 :] if line.strip()]
    assert models and not {"kernel-nb", "mixture", "nearest-mean"} & set(models)
    err = error_of(capsys, [*argv, "--skip", "svm"])
    assert "unknown model 'svm'" in err


def test_compare_time_limit_skips_a_model_with_the_reason(table, capsys):
    argv = ["compare", "fruit.csv", "--target", "fruit", "--cv", "3", "--models", "qda,lda"]
    out = ok(capsys, [*argv, "--time-limit", "0.001"])
    assert "qda: skipped: over the time limit of 0.001 s" in out
    assert "lda: skipped: over the time limit of 0.001 s" in out
    out = ok(capsys, [*argv, "--time-limit", "120", "--json"])
    rows = json.loads(out)
    assert {r["model"] for r in rows} == {"qda", "lda"}
    assert all(r["error"] is None and r["predict_seconds"] >= 0 for r in rows)


# ----------------------------------------------------------------------- mixtures
def test_mixture_defaults_to_bic_and_says_why_fewer_candidates(table, capsys):
    out = ok(capsys, ["fit", "fruit.csv", "--target", "fruit", "--model", "mixture", "-o", "x"])
    assert load("x").n_components == "bic"
    argv = ["fit", "fruit.csv", "--target", "fruit", "--model", "mixture", "-o", "x"]
    out = ok(capsys, [*argv, "--max-components", "12"])
    note = [line for line in out.splitlines() if "--max-components 12" in line]
    assert note and "20 rows" in note[0], out


# ----------------------------------------------------------------------- caches, demo
def test_numba_kernels_are_loaded_from_the_cache_in_a_second_process(tmp_path):
    pytest.importorskip("numba")
    code = (
        "import numpy as np, scipy.sparse as sp; from bayesrule._engines import sparse; "
        "sparse.COMPILED_FROM = 0; "  # the compiled path for this small matrix too
        "X = sp.csr_array(np.array([[1.0, 0.0], [2.0, 3.0]])); "
        "sparse.csr_times_t(X, np.ones((2, 2))); k = sparse._compiled()[0]; "
        "print(sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()))"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        for _ in range(2)
    ]
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr
    assert runs[1].stdout.split() == ["1", "0"]  # loaded, not compiled again


def test_make_demo_installs_what_the_command_needs_to_read_csv():
    makefile = (ROOT / "Makefile").read_text()
    demo = re.search(r"^demo: (.*)$", makefile, flags=re.M).group(1)
    assert ".installed-cli" in demo
    assert "pandas" in re.search(
        r"^cli = \[(.*)\]$", (ROOT / "pyproject.toml").read_text(), re.M
    ).group(1)


class TTY(io.StringIO):
    def isatty(self):
        return True


def test_stages_on_a_terminal_are_one_status_line_erased_at_the_end(table, monkeypatch):
    tty = TTY()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(["fit", "fruit.csv", "--target", "fruit", "-o", "m.model"]) == 0
    drawn = tty.getvalue()
    assert "\rbayesrule fit: fitting qda on 60 rows ... " in drawn
    assert "\n" not in drawn and drawn.endswith("\r")  # redrawn in place, then erased
    tty.seek(0), tty.truncate()
    assert main(["fit", "fruit.csv", "--target", "fruit", "-o", "m.model", "-q"]) == 0
    assert tty.getvalue() == ""
