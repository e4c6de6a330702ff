"""The explorer's numbers, computed by bayesrule (no browser): seed 003's fruit at
x = [170, 585], priors kept summing to 1, the reject action, and model files it can and
cannot draw."""

import numpy as np
import pytest

from bayesrule import GaussianNB, LinearDiscriminant, MultinomialNB, QuadraticDiscriminant
from bayesrule.datasets import fruit
from bayesrule.explore import fruit_setting
from bayesrule.explore.setting import setting_of

SEED_LOSS = np.array([[0, 2, 3], [1, 0, 2], [1, 1, 0]], dtype=float)


def test_fruit_readout_reproduces_the_seed():
    out = fruit_setting().readout([170.0, 585.0])
    np.testing.assert_allclose(out["likelihoods"], [6.1364e-5, 3.3501e-5, 2.9236e-7], rtol=5e-5)
    assert out["evidence"] == pytest.approx(3.8004e-5, rel=5e-5)
    np.testing.assert_allclose(out["posteriors"], [0.6459, 0.3526, 0.0015], atol=5e-5)
    assert out["decision"] == "apple"
    from dataclasses import replace

    risky = replace(fruit_setting(), loss=SEED_LOSS).readout([170.0, 585.0])
    np.testing.assert_allclose(risky["risks"], [0.7098, 0.6489, 0.9985], atol=5e-5)
    assert risky["decision"] == "orange"


def test_priors_stay_a_distribution_and_move_the_regions():
    s = fruit_setting()
    moved = s.with_prior(2, 0.6)
    np.testing.assert_allclose(moved.priors, [0.2, 0.2, 0.6])
    assert moved.with_prior(0, 1.0).priors.tolist() == [1.0, 0.0, 0.0]
    before, after = s.grid(), moved.grid()
    grapefruit = 2
    assert (after["decision"] == grapefruit).sum() > (before["decision"] == grapefruit).sum()


def test_reject_cost_adds_the_reject_region():
    from dataclasses import replace

    s = replace(fruit_setting(), reject_cost=0.1)
    grid = s.grid()
    assert (grid["decision"] == 3).any()  # Chow's rule: reject where max posterior < 0.9
    assert s.readout([170.0, 585.0])["decision"] == "reject"


def test_model_files_it_can_and_cannot_draw(tmp_path):
    from bayesrule.io import save

    data = fruit(300, random_state=0)
    for est in (QuadraticDiscriminant(), LinearDiscriminant(), GaussianNB()):
        path = tmp_path / f"{type(est).__name__}.model"
        save(est.fit(data.data, data.target), path)
        s = setting_of(str(path))
        assert s.classes == ("apple", "grapefruit", "orange")
        lo_x, hi_x, lo_y, hi_y = s.bounds
        assert lo_x < 150 < 230 < hi_x and lo_y < 560 < 620 < hi_y
    wide = QuadraticDiscriminant().fit(np.c_[data.data, data.data[:, 0] * 0.3], data.target)
    with pytest.raises(ValueError, match="two different features of the 3"):
        setting_of(wide, pair=(0, 0))
    counts = MultinomialNB().fit(np.abs(data.data).round(), data.target)
    with pytest.raises(ValueError, match="draws Gaussian classifiers"):
        setting_of(counts)


def test_a_table_is_drawn_from_two_columns_and_its_labels():
    import pandas as pd

    data = fruit(200, random_state=0)
    frame = pd.DataFrame(data.data, columns=data.feature_names).assign(note="x", fruit=data.target)
    from bayesrule.explore.setting import setting_from_table

    s, names = setting_from_table(frame)
    assert names == ("weight_g", "color_nm", "fruit")
    assert s.features == ("weight_g", "color_nm") and len(s.points[0]) == len(frame)
    qda = QuadraticDiscriminant().fit(data.data, data.target)
    np.testing.assert_allclose(s.means, qda.means_)
    assert s.readout([170.0, 585.0])["decision"] == qda.predict([[170.0, 585.0]])[0]
    for bad, message in [
        (frame[["fruit"]], "two numeric columns"),
        (frame.assign(fruit=np.arange(len(frame)) % 7), "2 to 4 classes"),
        (frame[["weight_g", "color_nm"]], "a column of class labels"),
    ]:
        with pytest.raises(ValueError, match=message):
            setting_from_table(bad)
    with pytest.raises(ValueError, match="no column 'mass'"):
        setting_from_table(frame, "mass")


def test_neyman_pearson_keeps_the_false_alarm_bound():
    # equal covariances: the likelihood ratio is linear, its false alarm a normal tail
    from dataclasses import replace

    from scipy.stats import norm

    from bayesrule.explore import Setting

    cov = np.array([[4.0, 1.0], [1.0, 2.0]])
    s = Setting(
        classes=("signal", "noise"),
        means=np.array([[2.0, 1.0], [0.0, 0.0]]),
        covariances=np.stack([cov, cov]),
        priors=np.array([0.5, 0.5]),
        loss=1.0 - np.eye(2),
        bounds=(-6.0, 8.0, -5.0, 6.0),
        false_alarm=0.05,
        positive=0,
    )
    rule = s.neyman_pearson()
    assert rule["false_alarm"] <= 0.05
    # exact rates of the threshold found: w.x > c with w = Sigma^-1 (mu1 - mu0)
    w = np.linalg.solve(cov, s.means[0] - s.means[1])
    c = rule["threshold"] + 0.5 * (s.means[0] @ np.linalg.solve(cov, s.means[0]))
    sd = np.sqrt(w @ cov @ w)
    exact_fa = norm.sf((c - w @ s.means[1]) / sd)
    exact_det = norm.sf((c - w @ s.means[0]) / sd)
    assert exact_fa == pytest.approx(0.05, abs=0.004)
    assert rule["detection"] == pytest.approx(exact_det, abs=0.01)
    out = s.readout([6.0, 3.0])  # ln ratio 2.86 > threshold 1.19
    assert out["decision"] == "signal" and "neyman_pearson" in out
    assert s.readout([-1.0, 0.0])["decision"] == "noise"
    grid = s.grid()
    assert set(np.unique(grid["decision"])) == {0, 1}
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        replace(s, false_alarm=1.5).neyman_pearson()


def test_a_slice_of_a_model_with_more_features_has_the_models_posteriors():
    rng = np.random.default_rng(0)
    data = fruit(300, random_state=0)
    X = np.c_[data.data, data.data[:, 0] * 0.05 + rng.normal(0, 3, len(data.data))]
    qda = QuadraticDiscriminant().fit(X, data.target)
    at = np.array([12.0])
    s = setting_of(qda, pair=(0, 1), at=at)
    points = np.array([[150.0, 560.0], [170.0, 585.0], [230.0, 620.0]])
    full = qda.predict_proba(np.c_[points, np.full(3, 12.0)])
    sliced = np.array([s.readout(p)["posteriors"] for p in points])
    np.testing.assert_allclose(sliced, full, atol=1e-10)
    s2 = setting_of(qda, pair=(2, 0))  # other features, at the mean
    assert s2.features == ("x2", "x0")


def test_two_to_four_classes_of_ones_own():
    s = fruit_setting()
    four = s.with_classes(4)
    assert four.classes == ("apple", "orange", "grapefruit", "class 4")
    np.testing.assert_allclose(four.priors, 0.25)
    np.testing.assert_allclose(four.means[:3], s.means)
    assert four.loss.shape == (4, 4) and np.all(np.diag(four.loss) == 0)
    assert set(np.unique(four.grid()["decision"])) <= {0, 1, 2, 3}
    assert 3 in four.grid()["decision"]  # the new class has its region
    two = four.with_classes(2)
    assert two.classes == ("apple", "orange") and two.means.shape == (2, 2)
    out = two.readout([170.0, 585.0])
    assert sum(out["posteriors"]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="2 to 4 classes"):
        s.with_classes(5)


def test_the_command_serves_localhost_only_and_says_how_to_change_it():
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    pytest.importorskip("bokeh")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "bayesrule", "explore", "--no-browser", "--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        first, second = server.stdout.readline(), server.stdout.readline()
        assert (
            first.strip()
            == f"bayesrule explore: serving http://localhost:{port}/ (Ctrl-C stops it)"
        )
        assert "--address 0.0.0.0" in second
        end = time.monotonic() + 20
        while True:
            try:
                page = urllib.request.urlopen(f"http://localhost:{port}/", timeout=5).read()
                break
            except OSError:
                assert time.monotonic() < end
                time.sleep(0.2)
        assert b"bayesrule explore" in page and b"/static/js/bokeh.min.js" in page
        # the sockets listening on the port (/proc/net/tcp*): loopback addresses only
        bound = []
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            for line in open(table).read().splitlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                address, hex_port = local.split(":")
                if state == "0A" and int(hex_port, 16) == port:
                    bound.append(address)
        loopback = {"0100007F", "00000000000000000000000001000000"}
        assert bound and set(bound) <= loopback, bound
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_command_refuses_a_model_it_cannot_draw(tmp_path, capsys):
    from bayesrule.cli import main
    from bayesrule.io import save

    pytest.importorskip("bokeh")
    data = fruit(100, random_state=0)
    path = tmp_path / "counts.model"
    save(MultinomialNB().fit(np.round(data.data), data.target), path)
    assert main(["explore", str(path), "--no-browser"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bayesrule explore: error: the explorer draws Gaussian classifiers")
