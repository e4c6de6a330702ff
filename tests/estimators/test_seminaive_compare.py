"""examples/seminaive_compare.py, small: 3 folds on iris and the penguins."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from bayesrule import AODE, CategoricalNB

PATH = Path(__file__).parents[2] / "examples" / "seminaive_compare.py"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("seminaive_compare", PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


@pytest.fixture(scope="module")
def penguin_rows(script):
    return script.compare(["penguins"], folds=3)


def test_rows_cover_every_binning_and_model_with_finite_scores(script, penguin_rows):
    keys = [(r["dataset"], r["binning"], r["model"]) for r in penguin_rows]
    expected = [("penguins", b, m) for b in ("mdl", "quantile") for m in script.MODELS]
    assert keys == expected
    for row in penguin_rows:
        assert row["error"] is None and row["warnings"] == set()
        assert row["accuracy"].shape == row["log_loss"].shape == (3,)
        assert np.all((row["accuracy"] > 0.8) & (row["accuracy"] <= 1))
        assert np.all(np.isfinite(row["log_loss"]) & (row["log_loss"] > 0))
        assert row["seconds"] > 0
    assert [r["bins"] for r in penguin_rows[4:]] == [5.0] * 4  # quantile: 5 bins each
    assert 2 <= penguin_rows[0]["bins"] < 5


def test_markdown_tables_have_one_line_per_row(script, penguin_rows):
    lines = script.results_table(penguin_rows).splitlines()
    assert lines[0] == "| data set | binning | model | accuracy | log loss | time (s) |"
    assert len(lines) == 2 + len(penguin_rows)
    for line, row in zip(lines[2:], penguin_rows, strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert len(cells) == 6
        assert cells[0] == "penguins" and cells[2] == row["model"]
        mean, sd = cells[3].strip("*").split(" ± ")
        assert float(mean) == pytest.approx(row["accuracy"].mean(), abs=5e-4)
        assert float(sd) == pytest.approx(row["accuracy"].std(ddof=1), abs=5e-4)
    # 344 rows; 2 rows miss all four measurements, 11 miss the sex: 19 missing values
    table = script.dataset_table(["penguins"]).splitlines()
    assert table[2] == "| penguins | 344 | 6 | 3 | 4 | 19 |"


def test_scores_reproduce_one_fold_by_hand(script, penguin_rows):
    data = script.DATASETS["penguins"]()
    train, test = next(StratifiedKFold(3, shuffle=True, random_state=0).split(data.X, data.y))
    X_train, X_test, _ = script.bin_fold(data, train, test, "mdl", 5)
    model = CategoricalNB(alpha=1.0).fit(X_train, data.y[train])
    proba = model.predict_proba(X_test)
    accuracy = np.mean(model.predict(X_test) == data.y[test])
    row = penguin_rows[0]
    assert row["model"] == "CategoricalNB" and row["binning"] == "mdl"
    assert row["accuracy"][0] == pytest.approx(accuracy)
    assert row["log_loss"][0] == pytest.approx(log_loss(data.y[test], proba, labels=model.classes_))


def test_fold_bins_equal_the_estimators_own_mdl_bins(script):
    # iris has no whole-number column, so discretize="mdl" bins all four like bin_fold
    data = script.DATASETS["iris"]()
    train, test = next(StratifiedKFold(3, shuffle=True, random_state=0).split(data.X, data.y))
    X_train, X_test, bins = script.bin_fold(data, train, test, "mdl", 5)
    own = AODE(discretize="mdl").fit(data.X.iloc[train], data.y[train])
    assert bins == [e.size + 1 for e in own.bin_edges_]
    ours = AODE().fit(X_train, data.y[train])
    np.testing.assert_allclose(
        ours.predict_proba(X_test), own.predict_proba(data.X.iloc[test]), rtol=1e-12
    )


def test_main_prints_both_tables(script, capsys):
    rows = script.main(folds=3, datasets=["iris"])
    out = capsys.readouterr().out
    assert "| iris | 150 | 4 | 3 | 4 | 0 |" in out
    assert out.count("| iris | mdl (") == 4 and out.count("| iris | quantile (5.0 bins) |") == 4
    assert out.rstrip().endswith("Errors and warnings:\n- none")
    assert len(rows) == 8
