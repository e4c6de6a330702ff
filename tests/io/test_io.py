"""bayesrule.io: exact round trips of every estimator, and refusal of every bad file."""

from __future__ import annotations

import json
import math
import os
import pickle
import sys
import zipfile
from datetime import datetime

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

import bayesrule
from bayesrule import (
    BayesClassifier,
    GaussianNB,
    LinearDiscriminant,
    LossMatrix,
    NearestMean,
    QuadraticDiscriminant,
)
from bayesrule.io import container
from bayesrule.io import files as bio
from bayesrule.likelihoods import Gaussian

ESTIMATORS = {
    "GaussianNB": lambda **kw: GaussianNB(**kw),
    "QuadraticDiscriminant": lambda **kw: QuadraticDiscriminant(reg_covar=1e-6, **kw),
    "LinearDiscriminant": lambda **kw: LinearDiscriminant(**kw),
    "LinearDiscriminant-shrink0.2": lambda **kw: LinearDiscriminant(shrinkage=0.2, **kw),
    "LinearDiscriminant-auto": lambda **kw: LinearDiscriminant(shrinkage="auto", **kw),
    "NearestMean": lambda **kw: NearestMean(**kw),
    "BayesClassifier-spherical": lambda **kw: BayesClassifier(Gaussian("spherical"), **kw),
}
# partial_fit cannot use Ledoit-Wolf shrinkage (it needs all the data at once)
INCREMENTAL = [k for k in ESTIMATORS if k != "LinearDiscriminant-auto"]
LABELS = {
    "str": np.array(["apple", "orange", "grapefruit"]),
    "int": np.array([3, -7, 12]),
}


def make_data(n_per_class=40, seed=0, labels=LABELS["str"]):
    """Three overlapping Gaussian classes in 3 features (some points are ambiguous)."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0, 0.0], [1.5, 1.0, -0.5], [0.5, 2.0, 1.0]])
    X = np.concatenate([c + rng.normal(size=(n_per_class, 3)) for c in centres])
    y = np.repeat(labels, n_per_class)
    order = rng.permutation(len(y))
    return X[order], y[order]


def bits(a) -> tuple:
    a = np.asarray(a)
    if a.dtype == object:
        return a.dtype.str, a.shape, [(type(v), v) for v in a.ravel().tolist()]
    return a.dtype.str, a.shape, a.tobytes()


def params_equal(a, b) -> bool:
    if isinstance(a, BaseEstimator) or isinstance(b, BaseEstimator):
        return type(a) is type(b) and params_equal(a.get_params(), b.get_params())
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(params_equal(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bits(a) == bits(b)
    return type(a) is type(b) and a == b


def assert_same_predictions(a, b, X):
    for method in (
        "predict",
        "predict_proba",
        "predict_log_proba",
        "predict_joint_log_proba",
        "log_likelihood",
        "log_evidence",
        "risk",
    ):
        assert bits(getattr(a, method)(X)) == bits(getattr(b, method)(X)), method


def assert_same_model(original, loaded, X):
    assert type(loaded) is type(original)
    assert params_equal(loaded.get_params(deep=False), original.get_params(deep=False))
    assert params_equal(loaded.get_params(deep=True), original.get_params(deep=True))
    for attr in ("classes_", "class_count_", "class_prior_", "actions_"):
        assert bits(getattr(loaded, attr)) == bits(getattr(original, attr)), attr
    assert loaded.n_features_in_ == original.n_features_in_
    assert loaded.reject_label_ == original.reject_label_
    assert type(loaded.reject_label_) is type(original.reject_label_)
    assert loaded.loss_ == original.loss_
    assert_same_predictions(original, loaded, X)


def round_trip(estimator, tmp_path, name="model.bayesrule"):
    path = tmp_path / name
    bio.save(estimator, path)
    return bio.load(path)


# --------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("labels", sorted(LABELS))
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_round_trip_predicts_bitwise_equal(name, labels, tmp_path):
    X, y = make_data(labels=LABELS[labels])
    est = ESTIMATORS[name]().fit(X, y)
    loaded = round_trip(est, tmp_path)
    X_new, _ = make_data(n_per_class=25, seed=1, labels=LABELS[labels])
    assert_same_model(est, loaded, X_new)
    assert sorted(loaded.classes_.tolist()) == sorted(LABELS[labels].tolist())
    assert loaded.classes_.dtype == LABELS[labels].dtype
    # the predictions are real: well above chance (1/3) on fresh data
    assert loaded.score(*make_data(n_per_class=200, seed=2, labels=LABELS[labels])) > 0.6


@pytest.mark.parametrize("labels", sorted(LABELS))
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_round_trip_with_reject_loss_and_prior_dict(name, labels, tmp_path):
    classes = LABELS[labels]
    priors = {classes[0].item(): 0.5, classes[1].item(): 0.3, classes[2].item(): 0.2}
    est = ESTIMATORS[name](loss=LossMatrix.with_reject(3, 0.2), priors=priors)
    X, y = make_data(labels=classes)
    est.fit(X, y)
    loaded = round_trip(est, tmp_path)
    X_new, _ = make_data(n_per_class=100, seed=3, labels=classes)
    assert_same_model(est, loaded, X_new)
    assert loaded.priors == priors and loaded.loss == LossMatrix.with_reject(3, 0.2)
    assert loaded.loss is loaded.loss_  # one object, as in the original
    assert loaded.risk(X_new).shape == (300, 4)
    reject = "reject" if labels == "str" else -1
    assert loaded.reject_label_ == reject
    n_rejected = int(np.sum(loaded.predict(X_new) == reject))
    assert n_rejected == int(np.sum(est.predict(X_new) == reject))
    assert 0 < n_rejected < 300
    expected = [priors[c] for c in loaded.classes_.tolist()]
    assert loaded.class_prior_.tolist() == expected


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_dataframe_feature_names_survive(name, tmp_path):
    X, y = make_data()
    df = pd.DataFrame(X, columns=["weight", "height", "colour"])
    est = ESTIMATORS[name]().fit(df, y)
    loaded = round_trip(est, tmp_path)
    assert loaded.feature_names_in_.tolist() == ["weight", "height", "colour"]
    assert bits(loaded.feature_names_in_) == bits(est.feature_names_in_)
    X_new, _ = make_data(n_per_class=10, seed=4)
    df_new = pd.DataFrame(X_new, columns=["weight", "height", "colour"])
    assert_same_predictions(est, loaded, df_new)
    with pytest.raises(ValueError, match="feature names"):
        loaded.predict(df_new.rename(columns={"colour": "color"}))


def test_from_parameters_keeps_class_order_and_seed_numbers(tmp_path):
    qda = QuadraticDiscriminant.from_parameters(
        means=[[150, 560], [160, 615], [230, 620]],
        covariances=[np.diag([200, 200]), np.diag([250, 150]), np.diag([400, 200])],
        priors=[0.4, 0.4, 0.2],
        classes=["apple", "orange", "grapefruit"],
        loss=[[0, 2, 3], [1, 0, 2], [1, 1, 0]],
    )
    loaded = round_trip(qda, tmp_path)
    x = np.array([[170.0, 585.0]])
    assert loaded.classes_.tolist() == ["apple", "orange", "grapefruit"]
    assert np.allclose(loaded.predict_proba(x), [[0.6459, 0.3526, 0.0015]], atol=1e-4)
    assert np.allclose(loaded.risk(x), [[0.7097, 0.6489, 0.9985]], atol=1e-3)
    assert loaded.predict(x).tolist() == ["orange"]
    assert loaded.class_count_.tolist() == [0.0, 0.0, 0.0]
    grid = np.stack(np.meshgrid(np.linspace(100, 260, 9), np.linspace(520, 660, 9)), -1)
    assert_same_model(qda, loaded, grid.reshape(-1, 2))


def test_from_parameters_lda_and_gnb(tmp_path):
    means = [[0.0, 0.0], [2.0, 1.0], [-1.0, 3.0]]
    lda = LinearDiscriminant.from_parameters(
        means, [[1.0, 0.3], [0.3, 2.0]], classes=[20, 10, 30], priors={10: 0.2, 20: 0.5, 30: 0.3}
    )
    gnb = GaussianNB.from_parameters(
        means, [[1.0, 2.0], [0.5, 1.0], [2.0, 2.0]], classes=["z", "a", "m"]
    )
    X, _ = make_data(n_per_class=20, seed=5)
    X = X[:, :2]
    for est, classes in ((lda, [20, 10, 30]), (gnb, ["z", "a", "m"])):
        loaded = round_trip(est, tmp_path)
        assert loaded.classes_.tolist() == classes
        assert_same_model(est, loaded, X)


# --------------------------------------------------------------------------- continuing to learn
@pytest.mark.parametrize("name", INCREMENTAL)
def test_partial_fit_continues_from_saved_statistics(name, tmp_path):
    X, y = make_data(n_per_class=60, seed=6)
    first, second, third = np.array_split(np.arange(len(y)), 3)
    est = ESTIMATORS[name]().partial_fit(X[first], y[first], classes=LABELS["str"])
    loaded = round_trip(est, tmp_path)
    for rows in (second, third):
        est.partial_fit(X[rows], y[rows])
        loaded.partial_fit(X[rows], y[rows])
    X_new, _ = make_data(n_per_class=20, seed=7)
    assert_same_model(est, loaded, X_new)
    for field in ("count", "mean", "scatter"):
        got = getattr(loaded.likelihood_.stats_, field)
        assert bits(got) == bits(getattr(est.likelihood_.stats_, field)), field
    assert loaded.class_count_.sum() == 180.0
    # and it agrees with one fit on all the data
    whole = ESTIMATORS[name]().fit(X, y)
    assert np.allclose(loaded.predict_proba(X_new), whole.predict_proba(X_new), atol=1e-9)


def test_partial_fit_saved_before_every_class_was_seen(tmp_path):
    X, y = make_data(n_per_class=30, seed=8)
    seen = y != "grapefruit"
    est = GaussianNB().partial_fit(X[seen], y[seen], classes=LABELS["str"])
    assert "no samples" in est.likelihood_.pending_  # parameters wait for the third class
    loaded = round_trip(est, tmp_path)
    assert loaded.likelihood_.pending_ == est.likelihood_.pending_
    with pytest.raises(ValueError, match="do not determine the parameters yet"):
        loaded.predict(X)
    est.partial_fit(X[~seen], y[~seen])
    loaded.partial_fit(X[~seen], y[~seen])
    assert_same_model(est, loaded, X)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_loaded_estimator_refits_and_clones(name, tmp_path):
    X, y = make_data(seed=9)
    est = ESTIMATORS[name]().fit(X, y)
    loaded = round_trip(est, tmp_path)
    X2, y2 = make_data(seed=10, labels=LABELS["int"])
    loaded.fit(X2, y2)
    fresh = ESTIMATORS[name]().fit(X2, y2)
    assert_same_model(fresh, loaded, X)
    assert loaded.classes_.tolist() == [-7, 3, 12]
    assert params_equal(clone(loaded).get_params(), fresh.get_params())


# --------------------------------------------------------------------------- values of every kind
@bio.register
class _HoldsExtra(GaussianNB):
    """A user's subclass that declares fitted state of its own (``_saved_state``)."""

    _saved_state = ("extra_",)


def test_generic_values_round_trip_exactly(tmp_path):
    X, y = make_data()
    est = _HoldsExtra().fit(X, y)
    odd = {
        1: "int key",
        (2, "b"): "tuple key",
        2.5: [0.1 + 0.2, -0.0, 1e-310, 2**70, True, None],
        "floats": (math.nan, math.inf, -math.inf, 5e-324, 1.7976931348623157e308),
        "numpy": [np.float32(1 / 3), np.float64(np.nan), np.int8(-3), np.uint64(2**64 - 1)],
        "more numpy": [np.bool_(True), np.str_("é"), np.complex128(1 - 2j)],
        "nested": {"list": [[1, (2, [3])]], "empty": ({}, [], ())},
        "arrays": [np.arange(6, dtype=np.int32).reshape(2, 3), np.array([np.nan, -0.0])],
        "labels": np.array(["a", 2, 3.5, True, np.int64(7)], dtype=object),
        "fortran": np.asfortranarray(np.arange(12.0).reshape(3, 4)),
    }
    est.extra_ = odd
    loaded = round_trip(est, tmp_path).extra_

    def same(a, b):
        if isinstance(a, np.ndarray):
            ok = bits(a) == bits(b) and a.flags.f_contiguous == b.flags.f_contiguous
            return ok and a.flags.c_contiguous == b.flags.c_contiguous
        if isinstance(a, dict):
            return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
        if isinstance(a, (list, tuple)):
            return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
        if isinstance(a, float | np.floating) and np.isnan(a):
            return type(a) is type(b) and np.isnan(b)
        if isinstance(a, float):
            return type(b) is float and a.hex() == b.hex()
        return type(a) is type(b) and a == b

    assert same(odd, loaded)
    assert [type(k) for k in loaded] == [int, tuple, float, str, str, str, str, str, str, str]
    assert math.copysign(1.0, loaded[2.5][1]) == -1.0


def test_aliasing_and_object_actions_survive(tmp_path):
    X, y = make_data(labels=LABELS["int"])
    est = BayesClassifier(Gaussian("diag"), loss=LossMatrix.with_reject(3, 0.1), reject_label="?")
    est.fit(X, y)
    assert est.actions_.dtype == object
    loaded = round_trip(est, tmp_path)
    assert loaded.actions_.dtype == object
    assert loaded.actions_.tolist() == [-7, 3, 12, "?"]
    predicted = loaded.predict(X)
    assert bits(predicted) == bits(est.predict(X))
    assert 0 < int(np.sum(predicted == "?")) < len(y)
    plain = round_trip(GaussianNB().fit(X, y), tmp_path)
    assert plain.actions_ is plain.classes_  # shared, as fit leaves them


# --------------------------------------------------------------------------- refusals at save
def test_save_unfitted_raises_not_fitted(tmp_path):
    for make in ESTIMATORS.values():
        with pytest.raises(NotFittedError):
            bio.save(make(), tmp_path / "unfitted.model")
    assert list(tmp_path.iterdir()) == []


def test_save_refuses_foreign_estimators_and_values(tmp_path):
    X, y = make_data()
    with pytest.raises(TypeError, match="LogisticRegression"):
        bio.save(LogisticRegression().fit(X, y), tmp_path / "lr.model")
    with pytest.raises(TypeError, match="LossMatrix"):
        bio.save(LossMatrix.zero_one(3), tmp_path / "loss.model")

    est = QuadraticDiscriminant().fit(X, y)
    est.likelihood_.note_ = {"when": datetime(2024, 1, 1)}
    with pytest.raises(TypeError, match=r"QuadraticDiscriminant\.likelihood_\.note_\['when'\]"):
        bio.save(est, tmp_path / "bad.model")
    del est.likelihood_.note_
    est.labels_ = np.array(["a", None], dtype=object)
    with pytest.raises(TypeError, match=r"labels_\[1\].*NoneType"):
        bio.save(est, tmp_path / "bad.model")
    del est.labels_
    est.tags_ = {"a", "b"}
    with pytest.raises(TypeError, match=r"tags_: builtins\.set"):
        bio.save(est, tmp_path / "bad.model")
    assert list(tmp_path.iterdir()) == []


def test_failed_save_keeps_the_previous_file(tmp_path):
    X, y = make_data()
    est = GaussianNB().fit(X, y)
    path = tmp_path / "model.bayesrule"
    bio.save(est, path)
    before = path.read_bytes()
    broken = GaussianNB().fit(X, y)
    broken.extra_ = object()
    with pytest.raises(TypeError, match=r"GaussianNB\.extra_"):
        bio.save(broken, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.bayesrule"]


# --------------------------------------------------------------------------- paths
def test_paths_str_and_pathlib_kept_exactly(tmp_path):
    X, y = make_data()
    est = NearestMean().fit(X, y)
    bio.save(est, str(tmp_path / "as_str"))
    bio.save(est, tmp_path / "as_path.model")
    bio.save(est, os.fsencode(tmp_path / "as_bytes.bin"))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["as_bytes.bin", "as_path.model", "as_str"]  # no ".npz" appended
    for name in names:
        assert_same_model(est, bio.load(str(tmp_path / name)), X)
        assert_same_model(est, bio.load(tmp_path / name), X)
    # overwriting replaces the file whole
    other = NearestMean(priors="uniform").fit(X, y)
    bio.save(other, tmp_path / "as_str")
    assert bio.load(tmp_path / "as_str").priors == "uniform"
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    with pytest.raises(FileNotFoundError):
        bio.save(est, tmp_path / "no such dir" / "m.model")
    with pytest.raises(FileNotFoundError):
        bio.load(tmp_path / "missing.model")


def test_file_is_an_npz_with_documented_header(tmp_path):
    X, y = make_data()
    est = LinearDiscriminant(shrinkage=0.2).fit(X, y)
    path = tmp_path / "m.npz"
    bio.save(est, path)
    with np.load(path, allow_pickle=False) as npz:
        doc = json.loads(npz["__bayesrule__.json"].tobytes().decode())
        assert all(npz[name].dtype != object for name in npz.files)
        assert set(npz.files) == {"__bayesrule__.json", "__bayesrule__.sha256", *doc["arrays"]}
    assert doc["format"] == "bayesrule-model" and doc["format_version"] == 1
    assert doc["bayesrule_version"] == bayesrule.__version__
    assert datetime.fromisoformat(doc["created"]).utcoffset().total_seconds() == 0
    assert doc["class"] == "bayesrule.estimators.gaussian.LinearDiscriminant"
    assert doc["estimator"]["__class__"] == doc["class"]
    assert doc["params"]["shrinkage"] == 0.2 and doc["params"]["priors"] is None
    assert bio.info(path) == {
        "format": "bayesrule-model",
        "format_version": 1,
        "bayesrule_version": bayesrule.__version__,
        "created": doc["created"],
        "class": "bayesrule.estimators.gaussian.LinearDiscriminant",
        "n_arrays": len(doc["arrays"]),
    }
    with zipfile.ZipFile(path) as zf:
        assert zf.comment.startswith(b"bayesrule-sha256=") and len(zf.comment) == 81
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())


# --------------------------------------------------------------------------- refusals at load
@pytest.fixture
def saved(tmp_path):
    X, y = make_data(n_per_class=10)
    est = GaussianNB(priors={"apple": 0.2, "orange": 0.3, "grapefruit": 0.5}).fit(X, y)
    path = tmp_path / "good.model"
    bio.save(est, path)
    return path, path.read_bytes(), est


def refused(path, *patterns):
    with pytest.raises(ValueError, match="not a valid bayesrule model file") as info:
        bio.load(path)
    for pattern in patterns:
        assert pattern in str(info.value), str(info.value)
    return str(info.value)


def test_truncated_files_are_refused(saved, tmp_path):
    path, raw, _ = saved
    bad = tmp_path / "cut.model"
    offsets = [0, 1, 3, 4, 30, 100, 500, len(raw) // 3, len(raw) // 2]
    offsets += [len(raw) - k for k in (200, 100, 83, 82, 81, 60, 22, 2, 1)]
    for cut in offsets:
        bad.write_bytes(raw[:cut])
        refused(bad)
    bad.write_bytes(b"")
    refused(bad, "empty")


@pytest.mark.slow
def test_every_edited_byte_is_refused(saved, tmp_path):
    path, raw, _ = saved
    bad = tmp_path / "edited.model"
    assert 2000 < len(raw) < 20000
    for offset in range(len(raw)):
        edited = bytearray(raw)
        edited[offset] ^= 0x01 if offset % 2 else 0xFF
        bad.write_bytes(bytes(edited))
        with pytest.raises(ValueError, match="not a valid bayesrule model file"):
            bio.load(bad)
    # the untouched file still loads
    bad.write_bytes(raw)
    assert bio.load(bad).priors == {"apple": 0.2, "orange": 0.3, "grapefruit": 0.5}


def test_appended_bytes_are_refused(saved, tmp_path):
    path, raw, _ = saved
    bad = tmp_path / "longer.model"
    bad.write_bytes(raw + b"\n")
    refused(bad)


def test_pickle_csv_random_and_npy_files_are_refused(saved, tmp_path):
    _, _, est = saved
    pkl = tmp_path / "model.pkl"
    with open(pkl, "wb") as f:
        pickle.dump(est, f)
    refused(pkl, "pickle")
    pkl0 = tmp_path / "model0.pkl"
    pkl0.write_bytes(pickle.dumps({"a": 1}, protocol=0))
    refused(pkl0, "pickle")
    csv = tmp_path / "data.csv"
    csv.write_text("weight,height,label\n150,560,apple\n160,615,orange\n")
    refused(csv, "not a zip/npz container")
    noise = tmp_path / "noise.bin"
    noise.write_bytes(np.random.default_rng(0).bytes(4096))
    refused(noise, "not a zip/npz container")
    npy = tmp_path / "array.npy"
    np.save(npy, np.arange(5))
    refused(npy, ".npy")
    fake_zip = tmp_path / "fake.zip"
    fake_zip.write_bytes(b"PK\x03\x04" + b"\0" * 200)
    refused(fake_zip, "zip container is damaged")


def test_other_npz_and_zip_files_are_refused(tmp_path):
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.arange(3.0), labels=np.array(["a", "b", "c"]))
    refused(other, "__bayesrule__.json")
    not_ours = tmp_path / "not_ours.npz"
    text = json.dumps({"format": "someone-else", "format_version": 1}).encode()
    np.savez(not_ours, **{"__bayesrule__.json": np.frombuffer(text, np.uint8)})
    refused(not_ours, "'someone-else'")
    with zipfile.ZipFile(tmp_path / "plain.zip", "w") as zf:
        zf.writestr("readme.txt", "hello")
    refused(tmp_path / "plain.zip", "non-array entries")
    with open(tmp_path / "pickled.npz", "wb") as f:
        np.savez(f, **{"__bayesrule__.json": np.array([{"format": 1}], dtype=object)})
    refused(tmp_path / "pickled.npz", "object")


def rewrite(raw, tmp_path, edit, name="crafted.model"):
    """A file with valid checksums whose JSON document was changed by ``edit``."""
    document, arrays = container._unpack(raw)
    edit(document, arrays)
    path = tmp_path / name
    path.write_bytes(container._container(document, arrays))
    return path


def test_newer_format_version_asks_to_upgrade(saved, tmp_path):
    _, raw, _ = saved

    def newer(doc, arrays):
        doc["format_version"] = 999
        doc["estimator"] = {"__something_new__": True}

    message = refused(rewrite(raw, tmp_path, newer), "format_version 999", "upgrade bayesrule")
    assert f"bayesrule {bayesrule.__version__}" in message
    # also when the rest of the file follows a layout this version does not know
    document, arrays = container._unpack(raw)
    document["format_version"] = 999
    plain = tmp_path / "v999.npz"
    text = json.dumps(document).encode()
    np.savez(plain, **{"__bayesrule__.json": np.frombuffer(text, np.uint8)})
    refused(plain, "format_version 999", "upgrade bayesrule")
    for bad_version in (0, "1", 1.0, True, None):
        refused(rewrite(raw, tmp_path, lambda d, a, v=bad_version: d.update(format_version=v)))


def test_unknown_and_unsafe_class_names_are_refused(saved, tmp_path):
    _, raw, _ = saved
    for name in ("subprocess.Popen", "os.system", "bayesrule_plugin_never_imported.Model"):

        def swap(doc, arrays, name=name):
            doc["estimator"]["state"]["likelihood_"] = {"__class__": name, "id": 99, "state": {}}

        refused(rewrite(raw, tmp_path, swap), f"unknown class {name!r}")
    assert "bayesrule_plugin_never_imported" not in sys.modules

    def not_an_estimator(doc, arrays):
        doc["class"] = "bayesrule.stats.moments.ClassMoments"
        doc["estimator"] = doc["estimator"]["state"]["likelihood_"]["state"]["stats_"]
        doc["estimator"]["id"] = 0

    refused(
        rewrite(raw, tmp_path, not_an_estimator), "not a 'bayesrule.stats.moments.ClassMoments'"
    )

    def lost_param(doc, arrays):
        del doc["estimator"]["state"]["var_smoothing"]

    refused(rewrite(raw, tmp_path, lost_param), "lacks a parameter")


def test_missing_array_entries_are_refused(saved, tmp_path):
    _, raw, _ = saved
    document, arrays = container._unpack(raw)
    name = document["estimator"]["state"]["classes_"]["__array__"]

    def drop(doc, arrays):
        del arrays[name]

    refused(rewrite(raw, tmp_path, drop), f"missing array entry {name!r}")
    # the manifest names an entry the zip does not have (checksums made to match)
    arrays_without = {k: v for k, v in arrays.items() if k != name}
    document["arrays"] = {
        k: {"dtype": a.dtype.str, "shape": list(a.shape)} for k, a in arrays.items()
    }
    text = json.dumps(document).encode()
    path = tmp_path / "missing.model"
    path.write_bytes(
        container._pack(text, arrays_without, container._content_digest(text, arrays_without))
    )
    refused(path, f"missing array entries [{name!r}]")


def test_content_checksum_is_verified(saved, tmp_path):
    _, raw, est = saved
    document, arrays = container._unpack(raw)
    text = json.dumps(document).encode()
    digest = container._content_digest(text, arrays)
    name = document["estimator"]["state"]["class_count_"]["__array__"]
    tampered = dict(arrays, **{name: np.array([0.9, 0.05, 0.05])})
    path = tmp_path / "tampered.model"
    path.write_bytes(container._pack(text, tampered, digest))
    refused(path, "SHA-256 over the JSON and arrays does not match")
    path.write_bytes(container._pack(text, arrays, digest))  # the same, untampered, loads
    assert_same_model(est, bio.load(path), make_data(n_per_class=5)[0])
    # a file re-zipped without the whole-file checksum is refused
    with np.load(tmp_path / "tampered.model", allow_pickle=False) as npz:
        entries = {k: npz[k] for k in npz.files}
    np.savez(tmp_path / "rezipped.npz", **entries)
    refused(tmp_path / "rezipped.npz", "whole-file checksum")


def test_malformed_json_documents_are_refused(saved, tmp_path):
    _, raw, _ = saved
    edits = {
        "unknown marker": lambda d, a: d["estimator"]["state"].update(x_={"__eval__": "1"}),
        "bad float": lambda d, a: d["estimator"]["state"].update(x_={"__float__": "big"}),
        "bad dtype": lambda d, a: d["estimator"]["state"].update(x_={"__numpy__": "O", "value": 1}),
        "dangling ref": lambda d, a: d["estimator"]["state"].update(x_={"__ref__": 42}),
        "bad state": lambda d, a: d["estimator"].update(state=[1, 2]),
        "no params": lambda d, a: d.pop("params"),
        "wrong params": lambda d, a: d["params"].update(extra=1),
        "unhashable key": lambda d, a: d["estimator"]["state"].update(
            x_={"__dict__": [[[1, 2], 3]]}
        ),
    }
    for label, edit in edits.items():
        path = rewrite(raw, tmp_path, edit, name=label.replace(" ", "_"))
        with pytest.raises(ValueError, match="not a valid bayesrule model file"):
            bio.load(path)
    # nesting deeper than Python's recursion: refused, not a crash
    document, arrays = container._unpack(raw)
    document["estimator"]["state"]["x_"] = "DEEP"
    depth = 100_000
    text = json.dumps(document).replace('"DEEP"', '{"__tuple__":[' * depth + "[]" + "]}" * depth)
    deep = tmp_path / "deep.model"
    deep.write_bytes(
        container._pack(text.encode(), arrays, container._content_digest(text.encode(), arrays))
    )
    refused(deep)


# --------------------------------------------------------------------------- the registry
class Calibrated(GaussianNB):
    """A user's subclass: not registered until the user says so."""


def test_register_allows_new_classes(tmp_path):
    X, y = make_data()
    est = Calibrated().fit(X, y)
    with pytest.raises(TypeError, match="Calibrated"):
        bio.save(est, tmp_path / "c.model")
    by_name, by_class = bio._registry()
    try:
        assert bio.register(Calibrated, name="tests.Calibrated") is Calibrated
        bio.save(est, tmp_path / "c.model")
        loaded = bio.load(tmp_path / "c.model")
        assert type(loaded) is Calibrated
        assert_same_model(est, loaded, X)
        with pytest.raises(ValueError, match="already registered"):
            bio.register(GaussianNB, name="tests.Calibrated")
        with pytest.raises(TypeError, match="takes a class"):
            bio.register(est)
    finally:
        by_name.pop("tests.Calibrated", None)
        by_class.pop(Calibrated, None)
    refused(tmp_path / "c.model", "unknown class 'tests.Calibrated'")
