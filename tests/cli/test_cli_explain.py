"""``bayesrule explain``: one row's log-odds terms from a saved model, equal to the
library's ``explain``, with a waterfall figure, and its refusals."""

import matplotlib.image
import numpy as np
import pandas as pd
import pytest

from bayesrule.cli import main
from bayesrule.datasets import fruit
from bayesrule.io import load


@pytest.fixture()
def fitted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = fruit(200, random_state=0)
    frame = pd.DataFrame(data.data, columns=data.feature_names)
    frame["fruit"] = data.target
    frame.to_csv("fruit.csv", index=False)
    frame.drop(columns="fruit").iloc[:5].to_csv("new.csv", index=False)
    assert (
        main(["fit", "fruit.csv", "--target", "fruit", "--model", "qda", "-o", "fruit.model", "-q"])
        == 0
    )
    return frame


def test_explain_prints_the_terms_of_the_row(fitted, capsys):
    capsys.readouterr()
    assert main(["explain", "fruit.model", "new.csv", "--row", "3", "-o", "why.png", "-q"]) == 0
    out = capsys.readouterr().out.splitlines()
    model = load("fruit.model")
    X = fitted.drop(columns="fruit").iloc[[3]]
    why = model.explain(X)
    assert out[0] == f"row 3: decided {why.decided[0]}"
    total = [line for line in out if line.startswith("total (ln odds)")][0].split()[3:]
    k = why.decided_index[0]
    others = [j for j in range(3) if j != k]
    np.testing.assert_allclose([float(v) for v in total], why.log_odds()[0, others], atol=1e-4)
    names = [line.split("  ")[0] for line in out[2:-2]]
    assert names[0] == "prior" and "quadratic x'Wx" in names
    assert matplotlib.image.imread("why.png").shape[2] in (3, 4)
    assert out[-1] == "wrote why.png"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--row", "9"], "--row must be between 0 and 4"),
        (["--row", "0", "-o", "x.png", "--against", "kiwi"], "--against must be one of"),
    ],
)
def test_bad_rows_and_classes_are_one_line(fitted, capsys, args, message):
    capsys.readouterr()
    assert main(["explain", "fruit.model", "new.csv", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bayesrule explain: error: ") and message in err
    assert len(err.splitlines()) == 1
