"""Every estimator saves and loads; an edited or truncated file of any of them is refused."""

from __future__ import annotations

import numpy as np
import pytest
from registry import CASES

from bayesrule import io as bio


def _models():
    """Every case of the contract registry (every estimator, each of its settings), fitted
    on 200 rows of its data."""
    return {case.id: (case.make, lambda d=case.data: d(200, 0)) for case in CASES}


MODELS = _models()


@pytest.fixture(params=list(MODELS), scope="module")
def saved(request, tmp_path_factory):
    make, data = MODELS[request.param]
    X, y = data()
    est = make().fit(X, y)
    path = tmp_path_factory.mktemp(request.param) / "model.bayes"
    bio.save(est, path)
    return path, path.read_bytes(), est, X


def test_round_trip_predicts_the_same(saved):
    path, _, est, X = saved
    back = bio.load(path)
    assert type(back) is type(est)
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(back.predict(X), est.predict(X))


def test_edited_bytes_are_refused(saved, tmp_path):
    _, raw, _, _ = saved
    bad = tmp_path / "edited.bayes"
    offsets = np.unique(np.linspace(0, len(raw) - 1, 60).astype(int))
    for offset in offsets:
        edited = bytearray(raw)
        edited[offset] ^= 0x01
        bad.write_bytes(bytes(edited))
        with pytest.raises(ValueError, match="not a valid bayesrule model file"):
            bio.load(bad)


def test_truncated_files_are_refused(saved, tmp_path):
    _, raw, _, _ = saved
    bad = tmp_path / "cut.bayes"
    for cut in (1, len(raw) // 4, len(raw) // 2, len(raw) - 1):
        bad.write_bytes(raw[:cut])
        with pytest.raises(ValueError, match="not a valid bayesrule model file"):
            bio.load(bad)
