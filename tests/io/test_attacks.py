"""Hostile model files: each is refused with ValueError, in under 1 s of CPU and 50 MiB.

Bombs (a deflated member, shared references), out-of-range numbers and absurd array
headers, re-signed files whose fitted state no fit gives (for every estimator of the
registry), and special files (a folder, empty and truncated files, a huge sparse file,
``/dev/zero`` and a FIFO, the last two in a subprocess with a timeout so a regression
fails instead of hanging), through :func:`bayesrule.io.load` and the command line.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import io
import json
import os
import subprocess
import sys
import time
import tracemalloc
import zipfile

import numpy as np
import pytest
from registry import CASES

from bayesrule import SPODE, TAN, CategoricalNB, GaussianNB, KernelNB
from bayesrule import io as bio
from bayesrule.cli import main
from bayesrule.io import container

CPU_S = 1.0
MEMORY = 50 * 2**20


def refused(call, path, max_bytes=None, match="not a valid bayesrule model file"):
    """Run ``call(path, max_bytes=max_bytes)``: it must raise ValueError (matching
    ``match``) within the CPU and memory bounds; returns the message."""
    tracemalloc.start()
    start = time.process_time()
    try:
        with pytest.raises(ValueError, match=match) as info:
            call(path, **({} if max_bytes is None else {"max_bytes": max_bytes}))
    finally:
        cpu = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert cpu < CPU_S, f"refused after {cpu:.2f} s of CPU"
    assert peak < MEMORY, f"refused after allocating {peak / 2**20:.1f} MiB"
    return str(info.value)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (30, 3)), rng.normal(2, 1, (30, 3))]
    est = GaussianNB().fit(X, np.repeat(["a", "b"], 30))
    path = tmp_path_factory.mktemp("model") / "nb.model"
    bio.save(est, path)
    return path, X


def unpacked(path):
    return container._unpack(path.read_bytes())


def resigned(path, document, arrays):
    """A file of ``document`` and ``arrays`` with every checksum recomputed."""
    document = {k: v for k, v in document.items() if k != "arrays"}
    path.write_bytes(container._container(document, arrays))
    return path


def signed_zip(path, members: dict[str, bytes], method=zipfile.ZIP_STORED):
    """A zip of raw members with bayesrule's whole-file checksum as its comment."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    raw = buf.getvalue()
    comment = container._COMMENT_PREFIX + hashlib.sha256(raw).hexdigest().encode()
    path.write_bytes(raw[:-2] + len(comment).to_bytes(2, "little") + comment)
    return path


def npy(a: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, a)
    return out.getvalue()


# ------------------------------------------------------------------------------ bombs
def test_a_deflate_bomb_is_refused_before_it_is_inflated(model, tmp_path):
    path, _ = model
    raw = path.read_bytes()
    zf = zipfile.ZipFile(io.BytesIO(raw))
    members = {n: zf.read(n) for n in zf.namelist()}
    bomb = tmp_path / "bomb.model"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in members.items():
            out.writestr(name, data)
        with out.open("a99.npy", "w") as f:  # 64 MiB of zeros in about 64 KiB
            f.write(npy(np.zeros(0))[:128])
            zeros = bytes(1 << 20)
            for _ in range(64):
                f.write(zeros)
    bomb.write_bytes(buf.getvalue())
    assert bomb.stat().st_size < 2**20
    message = refused(bio.load, bomb)
    assert "compressed" in message


def test_a_member_declaring_more_than_the_file_holds_is_refused(model, tmp_path):
    path, _ = model
    raw = bytearray(path.read_bytes())
    at = raw.index(b"PK\x01\x02")  # the central directory entry of the first member
    raw[at + 24 : at + 28] = (2**31).to_bytes(4, "little")  # its uncompressed size: 2 GiB
    bad = tmp_path / "liar.model"
    bad.write_bytes(bytes(raw))
    assert "declares" in refused(bio.load, bad)


def _reference_chain(depth: int) -> dict:
    """Objects each holding the previous one twice: 2**depth values once expanded."""
    node = {"__class__": "bayesrule.stats.moments.ClassMoments", "id": 1000, "state": {}}
    for k in range(1, depth + 1):
        previous = {"__ref__": 1000 + k - 1}
        node = {
            "__class__": "bayesrule.stats.moments.ClassMoments",
            "id": 1000 + k,
            "state": {"count": [node, previous]},
        }
    return node


@pytest.mark.parametrize("where", ["params", "state"])
def test_references_that_expand_exponentially_are_refused(model, tmp_path, where):
    path, _ = model
    document, arrays = unpacked(path)
    if where == "params":
        document["params"]["priors"] = _reference_chain(60)
    else:
        document["estimator"]["state"]["priors"] = _reference_chain(60)
    bad = resigned(tmp_path / "refs.model", document, arrays)
    assert "expand" in refused(bio.load, bad)


def test_a_deeply_nested_parameter_is_refused(model, tmp_path):
    path, _ = model
    document, arrays = unpacked(path)
    text = json.dumps(document)
    deep = "[" * 100_000 + "]" * 100_000
    text = text.replace('"priors":null', f'"priors":{deep}', 1)
    document = json.loads(text.replace(deep, "null"))  # the manifest is rebuilt below
    raw = container._container({k: v for k, v in document.items() if k != "arrays"}, arrays)
    # put the deep list into the JSON entry and re-sign the whole file
    zf = zipfile.ZipFile(io.BytesIO(raw))
    members = {n: zf.read(n) for n in zf.namelist()}
    json_bytes = np.load(io.BytesIO(members["__bayesrule__.json.npy"])).tobytes()
    json_bytes = json_bytes.replace(b'"priors":null', b'"priors":' + deep.encode(), 1)
    members["__bayesrule__.json.npy"] = npy(np.frombuffer(json_bytes, np.uint8))
    digest = container._content_digest(json_bytes, dict(arrays))
    members["__bayesrule__.sha256.npy"] = npy(np.frombuffer(digest.encode(), np.uint8))
    bad = signed_zip(tmp_path / "deep.model", members)
    refused(bio.load, bad)


def test_inspect_refuses_a_reference_bomb_quickly(model, tmp_path, capsys):
    path, _ = model
    document, arrays = unpacked(path)
    document["estimator"]["state"]["priors"] = _reference_chain(60)
    bad = resigned(tmp_path / "refs.model", document, arrays)
    start = time.process_time()
    assert main(["inspect", str(bad)]) != 0
    assert time.process_time() - start < CPU_S
    assert "not a valid bayesrule model file" in capsys.readouterr().err


# ----------------------------------------------------------------- out-of-range numbers
@pytest.mark.parametrize(
    "value",
    [
        2**70,
        -(2**70),
        2**200,
        {"__numpy__": "<i8", "value": 2**70},
        {"__numpy__": "<i1", "value": 1000},
        {"__numpy__": "<u8", "value": -1},
        {"__numpy__": "<f2", "value": 1e300},
        {"__numpy__": "(1000000000,)f8", "value": 1.0},
        {"__numpy__": "V1000000000", "value": 1.0},
        -1,
        0,
        3.0,
        True,
    ],
    ids=repr,
)
def test_out_of_range_numbers_are_refused(model, tmp_path, value):
    path, _ = model
    document, arrays = unpacked(path)
    document["estimator"]["state"]["n_features_in_"] = value
    refused(bio.load, resigned(tmp_path / "number.model", document, arrays))


@pytest.mark.parametrize(
    "header",
    [
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (3, -2), }",
        "{'descr': '|V1000000000', 'fortran_order': False, 'shape': (1,), }",
        "{'descr': '<U2000000000', 'fortran_order': False, 'shape': (1,), }",
        "{'descr': ('<f8', (1000000000,)), 'fortran_order': False, 'shape': (1,), }",
        "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }",
    ],
    ids=["huge", "negative", "negative-2d", "void", "huge-str", "subarray", "object"],
)
def test_absurd_array_headers_are_refused(model, tmp_path, header):
    path, _ = model
    zf = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
    members = {n: zf.read(n) for n in zf.namelist()}
    name = next(n for n in members if not n.startswith("__bayesrule__"))
    text = header.encode("latin1")
    text += b" " * (-(len(text) + 11) % 64) + b"\n"
    members[name] = b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + bytes(8)
    refused(bio.load, signed_zip(tmp_path / "header.model", members))


# ------------------------------------------------------------------ forged fitted state
def _first_case_per_class():
    seen, out = set(), []
    for case in CASES:
        if case.cls not in seen and "csr" not in case.id:
            seen.add(case.cls)
            out.append(case)
    return out


FORGE_CASES = _first_case_per_class()


def _fitted_arrays(obj, found, seen, stats=False):
    """Float arrays of the fitted state (statistics if ``stats``), as (holder, key)."""
    if id(obj) in seen:
        return found
    seen.add(id(obj))
    if isinstance(obj, (list, tuple)):
        items = obj if isinstance(obj, list) else []
        for i, x in enumerate(obj):
            if isinstance(x, np.ndarray) and isinstance(obj, list):
                if x.dtype.kind == "f" and x.size and not stats:
                    found.append((items, i))
            else:
                _fitted_arrays(x, found, seen, stats)
        return found
    if not hasattr(obj, "__dict__") or isinstance(obj, (type, np.ndarray)):
        return found
    is_stats = dataclasses.is_dataclass(obj)
    for key, value in vars(obj).items():
        if isinstance(value, np.ndarray):
            if value.dtype.kind == "f" and value.size and is_stats == stats:
                found.append((vars(obj), key))
        elif not key.startswith("_") or key in ("_tables",):
            _fitted_arrays(value, found, seen, stats)
    return found


def _set_first(est, change, *, stats=False, where=lambda a: True):
    like = est.likelihood_
    for holder, key in _fitted_arrays(like, [], set(), stats):
        if where(holder[key]):
            holder[key] = change(np.array(holder[key]))
            return True
    return False


def _nan(a):
    a.flat[0] = np.nan
    return a


def _posinf(a):
    a.flat[0] = np.inf
    return a


def _negate(a):
    a.flat[np.argmax(a)] = -abs(a.flat[np.argmax(a)]) - 1.0
    return a


def _log_rows(a):
    with np.errstate(all="ignore"):
        return a.ndim and a.shape[-1] > 1 and np.allclose(np.exp(a).sum(-1), 1)


def _prob_rows(a):
    return a.ndim and a.shape[-1] > 1 and np.allclose(a.sum(-1), 1) and (a >= 0).all()


FORGERIES = {
    "nan-parameter": lambda est: _set_first(est, _nan),
    "inf-parameter": lambda est: _set_first(est, _posinf, where=lambda a: np.isfinite(a).all()),
    "negative-variance-or-probability": lambda est: _set_first(
        est, _negate, where=lambda a: (a > 0).all()
    ),
    "unnormalised": lambda est: (
        _set_first(est, lambda a: a * 0.5 + 0.1, where=_prob_rows)
        or _set_first(est, lambda a: a + 0.5, where=_log_rows)
    ),
    "wrong-shape": lambda est: _set_first(est, lambda a: a.ravel()[:-1]),
    "wrong-dtype": lambda est: _set_first(est, lambda a: a.astype(str)),
    "nan-statistic": lambda est: _set_first(est, _posinf, stats=True),
    "negative-count": lambda est: _set_first(
        est, _negate, stats=True, where=lambda a: (a >= 0).all()
    ),
    "negative-class-count": lambda est: est.class_count_.__setitem__(0, -3.0) or True,
    "classes-too-few": lambda est: setattr(est, "classes_", est.classes_[:-1]) or True,
    "classes-repeated": lambda est: est.classes_.__setitem__(1, est.classes_[0]) or True,
    "classes-complex": lambda est: setattr(est, "classes_", np.arange(3) * 1j) or True,
    "features-more": lambda est: setattr(est, "n_features_in_", est.n_features_in_ + 1) or True,
    "features-huge": lambda est: setattr(est, "n_features_in_", 2**62) or True,
    "missing-likelihood": lambda est: delattr(est, "likelihood_") or True,
    "extra-attribute": lambda est: setattr(est, "bogus_", [1, 2]) or True,
    "hides-a-method": lambda est: vars(est.likelihood_).__setitem__("log_likelihood", 3) or True,
    "likelihood-swapped": lambda est: setattr(est, "likelihood_", est.class_count_) or True,
}


@pytest.fixture(scope="module")
def fitted_models():
    out = {}
    for case in FORGE_CASES:
        X, y = case.data(150, 0)
        out[case.cls.__name__] = (case.make().fit(X, y), X)
    return out


def _forge_params():
    out = []
    for case in FORGE_CASES:
        for forgery in FORGERIES:
            name = case.cls.__name__
            out.append(pytest.param(case, forgery, id=f"{name}-{forgery}"))
    return out


@pytest.mark.parametrize(("case", "forgery"), _forge_params())
def test_re_signed_files_with_unusable_state_are_refused(fitted_models, tmp_path, case, forgery):
    est, X = fitted_models[case.cls.__name__]
    forged = copy.deepcopy(est)
    if not FORGERIES[forgery](forged):
        pytest.skip(f"{case.cls.__name__} has no array this forgery applies to")
    path = tmp_path / "forged.model"
    bio.save(forged, path)  # save signs the file: every checksum matches
    refused(bio.load, path)


@pytest.mark.parametrize("case", FORGE_CASES, ids=lambda c: c.cls.__name__)
def test_the_unforged_files_load_and_predict(fitted_models, tmp_path, case):
    est, X = fitted_models[case.cls.__name__]
    path = tmp_path / "model.model"
    bio.save(est, path)
    back = bio.load(path)
    proba = back.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_array_equal(proba, est.predict_proba(X))


# ---------------------------------------------------------------------- special files
def _data_csv(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("a,b,c\n0.1,0.2,0.3\n1.0,2.0,3.0\n")
    return data


def _special(kind: str, target, model_path):
    """Make ``target`` a file of ``kind``: a folder, empty, a truncated model, 1 TiB of
    holes (refused from its size) or 40 MiB of zeros (under the size limit: refused
    from its first bytes)."""
    if kind == "folder":
        target.mkdir()
    elif kind == "empty":
        target.write_bytes(b"")
    elif kind == "truncated":
        target.write_bytes(model_path.read_bytes()[:-100])
    else:
        with open(target, "wb") as f:
            f.truncate(2**40 if kind == "sparse" else 40 * 2**20)
    return target


@pytest.mark.parametrize("kind", ["folder", "empty", "truncated", "sparse", "zeros"])
def test_special_files_are_refused_by_load(model, tmp_path, kind):
    path, _ = model
    target = _special(kind, tmp_path / "target.model", path)
    refused(bio.load, target)
    refused(bio.info, target)


def test_a_size_limit_says_how_to_raise_it(model, tmp_path):
    path, _ = model
    message = refused(bio.load, path, 100, match="over the limit of 100 bytes")
    assert "load(path, max_bytes=...)" in message and "BAYESRULE_MAX_MODEL_BYTES=" in message
    assert type(bio.load(path, max_bytes=10**6)) is GaussianNB


@pytest.mark.parametrize("command", ["predict", "inspect"])
@pytest.mark.parametrize("kind", ["folder", "empty", "truncated", "sparse"])
def test_special_files_are_refused_by_the_command_line(model, tmp_path, capsys, command, kind):
    path, _ = model
    target = _special(kind, tmp_path / "target.model", path)
    argv = [command, str(target)] + ([str(_data_csv(tmp_path))] if command == "predict" else [])
    start = time.process_time()
    assert main(argv) != 0
    assert time.process_time() - start < CPU_S
    err = capsys.readouterr().err
    assert "not a valid bayesrule model file" in err or "folder" in err


_SPECIAL = r"""
import json, os, sys, time, contextlib, io
from bayesrule import io as bio
from bayesrule.cli import main
fifo, data = sys.argv[1], sys.argv[2]
results = {}
for name, target in (("fifo", fifo), ("zero", "/dev/zero")):
    for how in ("load", "info", "predict", "inspect"):
        start = time.process_time()
        err = io.StringIO()
        try:
            if how in ("load", "info"):
                getattr(bio, how)(target)
                outcome = "accepted"
            else:
                argv = [how, target] + ([data] if how == "predict" else [])
                with contextlib.redirect_stderr(err):
                    code = main(argv)
                outcome = f"exit {code}: {err.getvalue()}"
        except Exception as exc:
            outcome = f"{type(exc).__name__}: {exc}"
        results[f"{name}-{how}"] = [outcome, time.process_time() - start]
print(json.dumps(results))
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_and_dev_zero_are_refused_without_reading(tmp_path):
    fifo = tmp_path / "pipe.model"
    os.mkfifo(fifo)
    run = subprocess.run(
        [sys.executable, "-c", _SPECIAL, str(fifo), str(_data_csv(tmp_path))],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    results = json.loads(run.stdout.strip().splitlines()[-1])
    assert len(results) == 8
    for key, (outcome, cpu) in results.items():
        if key.endswith(("load", "info")):
            assert outcome.startswith("ValueError:"), (key, outcome)
        else:
            assert outcome.startswith(("exit 1", "exit 2")), (key, outcome)
        assert "not a regular file" in outcome, (key, outcome)
        assert cpu < CPU_S, (key, cpu)


def test_forged_grid_positions_of_a_kernel_density_are_refused(tmp_path):
    """Integer arrays that the statistics fix (a binned density's node counts) must equal
    them: within their range they once loaded, and predict indexed outside the grid."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (1500, 1)), rng.normal(100, 1, (500, 1))]
    y = np.repeat([0, 1], 1000)
    model = KernelNB(bandwidth=0.5, algorithm="binned").fit(X, y)
    forged = copy.deepcopy(model)
    counts = forged.likelihood_._grids[1][0][2]  # class 1: rows around 0 and around 100
    assert len(counts) == 2  # two segments of grid nodes
    counts[:] = counts.max()
    path = tmp_path / "forged.model"
    bio.save(forged, path)
    refused(bio.load, path)
    bio.save(model, path)
    assert np.isfinite(bio.load(path).predict_proba([[105.3]])).all()


@pytest.mark.parametrize("attribute", ["priors_", "class_prior_", "classes_"])
def test_forged_state_of_a_decision_rule_is_refused(tmp_path, attribute):
    """A wrapper's own fitted state is checked too: NaN priors once loaded and gave NaN
    posteriors and the first class for every row."""
    from sklearn.datasets import load_iris

    from bayesrule import QuadraticDiscriminant
    from bayesrule.decision import Minimax

    X, y = load_iris(return_X_y=True)
    rule = Minimax(QuadraticDiscriminant(), calibration=None).fit(X, y)
    path = tmp_path / "rule.model"
    bio.save(rule, path)
    assert np.isfinite(bio.load(path).predict_proba(X[:3])).all()
    forged = copy.deepcopy(rule)
    if attribute == "classes_":
        forged.classes_ = forged.classes_[::-1].copy()
    else:
        getattr(forged, attribute)[0] = np.nan
    bio.save(forged, path)
    refused(bio.load, path)


def test_forged_bins_of_a_categorical_model_are_refused(tmp_path):
    """Bins are learned from the data, not derived from the statistics: NaN or unordered
    cut points once loaded and gave every row the same posterior."""
    rng = np.random.default_rng(1)
    X = np.c_[rng.normal(size=200), rng.integers(0, 3, 200)]
    y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0).astype(int)
    model = CategoricalNB().fit(X, y)
    assert model.bin_edges_[0] is not None and model.bin_edges_[1] is None
    path = tmp_path / "model.model"
    for forge in (
        lambda edges: edges.__setitem__(0, np.array([np.nan, 5.0, -3.0])),
        lambda edges: edges.__setitem__(0, edges[0][::-1].copy()),
        lambda edges: edges.pop(),
    ):
        forged = copy.deepcopy(model)
        forge(forged.likelihood_.bin_edges_)
        bio.save(forged, path)
        refused(bio.load, path)


@pytest.mark.parametrize("name, value", [("backoff", -3.0), ("backoff", "x"), ("alpha", -1.0)])
def test_forged_parameters_of_a_semi_naive_model_are_refused(tmp_path, name, value):
    """A semi-naive family whose fit needs more than its statistics (bins, SPODE's
    super-parent chosen from the rows) is not derived again at load: its parameters are
    checked on their own (a negative back-off once loaded and predicted NaN)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    path = tmp_path / "model.model"
    for model in (SPODE().fit(X, y), TAN().fit(X, y)):
        forged = copy.deepcopy(model)
        setattr(forged.likelihood_, name, value)
        bio.save(forged, path)
        refused(bio.load, path)
