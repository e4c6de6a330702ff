"""Model files written before the layout move (modules renamed) still load and predict."""

import json
import pathlib

import numpy as np
import pytest

from bayesrule.io import load
from bayesrule.io.codec import _LEGACY, _registry

DATA = pathlib.Path(__file__).parents[1] / "data" / "before_layout"
EXPECTED = json.loads((DATA / "expected.json").read_text())


def _rows(values):
    X = np.array(values, dtype=object)
    if all(isinstance(v, float) for v in X.ravel()):
        return X.astype(float)
    return X


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_file_from_before_the_move_loads_and_predicts_the_same(name):
    model = load(DATA / f"{name}.model")
    assert type(model).__name__ == name
    want = EXPECTED[name]
    X = _rows(want["X"])
    assert model.predict(X).tolist() == want["predict"]
    if "predict_proba" in want:
        # the same to the last bits (sums may round differently on another CPU's SIMD)
        np.testing.assert_allclose(
            model.predict_proba(X), np.array(want["predict_proba"]), rtol=1e-13, atol=1e-300
        )


def test_every_old_name_in_the_files_is_an_alias():
    names = set()
    for path in DATA.glob("*.model"):
        with np.load(path) as z:
            doc = json.loads(bytes(z["__bayesrule__.json"]).decode())
        names.add(doc["class"])
        names.update(_class_names(doc["estimator"]))
    moved = {n for n in names if n in _LEGACY}
    assert "bayesrule.naive_bayes.CategoricalNB" in moved  # the files use the old paths
    assert "bayesrule.likelihoods.pair_counts.PairCounts" in moved
    by_name, _ = _registry()
    assert names - set(by_name) == set()  # every class the old files name resolves


def _class_names(value):
    if isinstance(value, dict):
        if "__class__" in value:
            yield value["__class__"]
        for v in value.values():
            yield from _class_names(v)
    elif isinstance(value, list):
        for v in value:
            yield from _class_names(v)


ISSUE16 = pathlib.Path(__file__).parents[1] / "data" / "before_issue16"


@pytest.mark.parametrize("name", sorted(json.loads((ISSUE16 / "expected.json").read_text())))
def test_a_file_from_before_the_backoff_and_kernel_changes_predicts_the_same(name):
    """Files written before ``backoff`` existed (and SPODE's super-parent was chosen by
    BIC) load with ``backoff=0`` and their own super-parent; a binned KernelNB's saved
    grids still equal the ones its statistics give (the grid's reach is unchanged).
    The kernel's interpolation adds its terms in another order now: equal to rounding."""
    want = json.loads((ISSUE16 / "expected.json").read_text())[name]
    model = load(ISSUE16 / f"{name}.model")
    if "binned" in want:
        assert model.likelihood_.binned_.all() == want["binned"] is True
    else:
        assert model.backoff == model.likelihood_.backoff == 0.0
    X = np.array(want["X"])
    np.testing.assert_allclose(
        model.predict_proba(X), want["predict_proba"], rtol=1e-12, atol=1e-15
    )
