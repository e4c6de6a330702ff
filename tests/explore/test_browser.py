"""The explorer in a real headless Chromium (Debian's ``chromium`` and
``chromium-driver``; installed here with apt-get where the test may, else skipped,
saying why): the page opens with every host but localhost unreachable, a prior slider
and a loss entry change the decision at the query point as Bayes' rule says, a click at
x = [170, 585] reads seed 003's posteriors and risks, a model file loads, and the
median redraw latency of 20 changes is measured. A screenshot is kept in
``artifacts/`` (``BAYESRULE_ARTIFACTS`` overrides)."""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bayesrule.explore import fruit_setting

pytestmark = pytest.mark.slow

SEED_LOSS = [[0, 2, 3], [1, 0, 2], [1, 1, 0]]
ARTIFACTS = Path(os.environ.get("BAYESRULE_ARTIFACTS", "artifacts"))
DOWNLOADS = ARTIFACTS / "downloads"


def _browser() -> tuple[str, str] | str:
    """(chromium, chromedriver) paths, installed with apt-get where possible, or the
    reason there is none."""
    found = shutil.which("chromium"), shutil.which("chromedriver")
    if all(found):
        return found
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        return "no chromium/chromedriver, and apt-get is not available to install them"
    for step in (["install"], ["update"], ["install"]):  # lists may need fetching first
        command = [apt, *step, "-y", "-q"] + (
            ["chromium", "chromium-driver"] if step == ["install"] else []
        )
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        except subprocess.TimeoutExpired:
            return f"apt-get {step[0]} took over 5 minutes"
        if step == ["install"] and done.returncode == 0:
            break
    found = shutil.which("chromium"), shutil.which("chromedriver")
    if all(found):
        return found
    return f"apt-get install chromium chromium-driver failed: {done.stderr.strip()[-300:]}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def page():
    pytest.importorskip("bokeh")
    webdriver = pytest.importorskip("selenium.webdriver")
    found = _browser()
    if isinstance(found, str):
        pytest.skip(f"no browser for the explorer test: {found}")
    chromium, driver_path = found
    port = _free_port()
    code = (
        "from bayesrule.explore.server import make_server\n"
        f"server = make_server(port={port})\n"
        "server.start()\n"
        "print('ready', flush=True)\n"
        "server.io_loop.start()\n"
    )
    server = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == "ready"
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1300,900",
            # every host but localhost unreachable: the page must need no network
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost",
        ):
            options.add_argument(flag)
        DOWNLOADS.mkdir(parents=True, exist_ok=True)
        for old in DOWNLOADS.glob("*"):
            old.unlink()
        options.add_experimental_option(
            "prefs", {"download.default_directory": str(DOWNLOADS.resolve())}
        )
        service = webdriver.ChromeService(executable_path=driver_path)
        driver = webdriver.Chrome(options=options, service=service)
        try:
            driver.set_script_timeout(30)
            driver.get(f"http://localhost:{port}/")
            _wait(driver, "return _readout() !== null && _readout().includes('decision')")
            yield driver, port
        finally:
            driver.quit()
    finally:
        server.terminate()
        server.wait(timeout=10)


# the newest model of a name: a loaded model file rebuilds the page, and BokehJS keeps
# the old models in its document (unreachable) for a while
HELPERS = """
window._model = (name) => [...Bokeh.documents[0]._all_models.values()]
  .filter((m) => m.name === name).pop() || null;
window._readout = () => {
  const m = window._model && Bokeh.documents.length ? _model('readout') : null;
  return m ? m.text : null; };
"""
FILE_INPUT = (
    "return Bokeh.index.find_one(_model('model-file')).shadow_el.querySelector('input[type=file]')"
)


def _js(driver, script, *args):
    driver.execute_script(HELPERS)
    return driver.execute_script(script, *args)


def _wait(driver, condition, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            driver.execute_script("if (window.Bokeh) {" + HELPERS + "}")
            if driver.execute_script(
                "try { if (!window.Bokeh || !Bokeh.documents.length) return false; "
                + condition.replace("return ", "return (", 1)
                + "); } catch (e) { return false; }"
            ):
                return
        except Exception:  # the page is still loading
            pass
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {condition}")


def _change(driver, name, value):
    """Set a widget's value as its view does, and wait for the server's new readout."""
    before = _js(driver, "return _readout()")
    if _js(driver, "return _model(arguments[0]).value", name) == value:
        return before  # no change, no new readout
    _js(driver, "_model(arguments[0]).value = arguments[1]", name, value)
    _wait(driver, f"return _readout() !== {before!r}")
    return _js(driver, "return _readout()")


def _decision(text: str) -> str:
    return text.split("class='decision'>")[1].split("<")[0]


def test_the_setting_exports_as_a_model_file(page):
    from bayesrule.io import load

    driver, _ = page
    _change(driver, "prior-grapefruit", 0.5)
    priors = [
        _js(driver, f"return _model('prior-{c}').value") for c in ("apple", "orange", "grapefruit")
    ]
    _js(
        driver,
        "Bokeh.index.find_one(_model('export-model')).shadow_el.querySelector('button').click()",
    )
    path = DOWNLOADS / "bayesrule-explore.model"
    end = time.monotonic() + 20
    while not path.exists() and time.monotonic() < end:
        time.sleep(0.1)
    time.sleep(0.3)  # written whole
    model = load(path)
    assert model.classes_.tolist() == ["apple", "orange", "grapefruit"]
    np.testing.assert_allclose(model.class_prior_, priors, atol=1e-12)
    proba = model.predict_proba([[170.0, 585.0]])[0]
    expected = fruit_setting().with_prior(2, 0.5).readout([170.0, 585.0])["posteriors"]
    np.testing.assert_allclose(proba, expected, atol=1e-12)
    _change(driver, "prior-grapefruit", 0.2)
    _js(driver, "_model('figure-format').value = 'svg'")
    _wait(driver, "return _model('figure').output_backend === 'svg'")


def test_network_blocked_and_every_resource_local(page):
    driver, port = page
    urls = _js(driver, "return performance.getEntriesByType('resource').map(e => e.name)")
    assert urls and all(u.startswith(f"http://localhost:{port}/") for u in urls), urls


def test_click_reads_the_seed_numbers(page):
    driver, _ = page
    # away first, then a real click at x = [170, 585] on the figure
    _change(driver, "query-x", 250.0)
    target = _js(
        driver,
        """const plot = _model('figure');
        const view = Bokeh.index.find_one(plot);
        const canvas = view.canvas_view.events_el;
        const r = canvas.getBoundingClientRect();
        const fx = view.frame.x_scale.compute(170.0), fy = view.frame.y_scale.compute(585.0);
        return [canvas, fx - r.width / 2, fy - r.height / 2];""",
    )
    from selenium.webdriver.common.action_chains import ActionChains

    before = _js(driver, "return _readout()")
    ActionChains(driver).move_to_element_with_offset(
        target[0], target[1], target[2]
    ).click().perform()
    _wait(driver, f"return _readout() !== {before!r}")
    text = _js(driver, "return _readout()")
    x = [float(v) for v in text.split("x = [")[1].split("]")[0].split(",")]
    np.testing.assert_allclose(x, [170.0, 585.0], atol=0.6)  # a pixel's width
    if not np.allclose(x, [170.0, 585.0], atol=1e-9):  # the numbers at exactly the point
        _change(driver, "query-x", 170.0)
        text = _change(driver, "query-y", 585.0)
    for number in ("6.136e-05", "3.35e-05", "2.924e-07", "3.8004e-05", "0.6459", "0.3526"):
        assert number in text, number
    assert _decision(text) == "apple"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(ARTIFACTS / "explorer.png"))


def test_loss_and_prior_move_the_decision_as_bayes_rule_says(page):
    driver, _ = page
    _change(driver, "query-x", 170.0)
    _change(driver, "query-y", 585.0)
    names = ("apple", "orange", "grapefruit")
    for a, row in enumerate(SEED_LOSS):
        for k, value in enumerate(row):
            text = _change(driver, f"loss-{names[a]}-{names[k]}", float(value))
    for number in ("0.7098", "0.6489", "0.9985"):
        assert number in text
    assert _decision(text) == "orange"  # the seed's least-risk action
    expected = replace(fruit_setting(), loss=np.array(SEED_LOSS, float)).with_prior(0, 0.8)
    text = _change(driver, "prior-apple", 0.8)
    assert _decision(text) == expected.readout([170.0, 585.0])["decision"]
    priors = [
        _js(driver, f"return _model('prior-{c}').value") for c in ("apple", "orange", "grapefruit")
    ]
    np.testing.assert_allclose(priors, expected.priors, atol=1e-9)
    # latency: 20 changes of a prior, median time to the new readout and a frame drawn
    times = []
    for i in range(20):
        value = 0.3 + 0.02 * i
        times.append(
            driver.execute_async_script(
                HELPERS
                + """const [value, done] = arguments; const before = _readout();
                const t0 = performance.now(); _model('prior-orange').value = value;
                const poll = () => { if (_readout() !== before) requestAnimationFrame(
                  () => done(performance.now() - t0)); else setTimeout(poll, 1); };
                poll();""",
                value,
            )
        )
    median = statistics.median(times)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "explorer_latency.txt").write_text(
        f"median redraw latency of 20 prior changes: {median:.1f} ms\nall: {times}\n"
    )
    print(f"median redraw latency: {median:.1f} ms")


def test_a_model_file_loads_and_a_bad_one_says_why(page, tmp_path):
    from bayesrule import GaussianNB, MultinomialNB
    from bayesrule.datasets import fruit
    from bayesrule.io import save

    driver, _ = page
    data = fruit(300, random_state=0)
    broken = tmp_path / "broken.model"
    broken.write_bytes(b"PK\x03\x04 not a model")
    _js(driver, FILE_INPUT).send_keys(str(broken))
    _wait(driver, "return _model('message').text.includes('broken.model')")
    counts = tmp_path / "counts.model"
    save(MultinomialNB().fit(np.round(data.data), data.target), counts)
    _js(driver, FILE_INPUT).send_keys(str(counts))
    _wait(driver, "return _model('message').text.includes('draws Gaussian classifiers')")
    assert "Traceback" not in _js(driver, "return _model('message').text")
    good = tmp_path / "nb.model"
    save(GaussianNB().fit(data.data, data.target), good)
    upload = _js(driver, FILE_INPUT)
    upload.send_keys(str(good))
    # the model's classes come sorted: the readout's columns change order
    header = "<th>apple</th><th>grapefruit</th><th>orange</th>"
    _wait(driver, f"return _readout() !== null && _readout().includes({header!r})")
    text = _js(driver, "return _readout()")
    model = GaussianNB().fit(data.data, data.target)
    priors = text.split("<td>P(w)</td>")[1].split("</tr>")[0]
    shown = [float(v) for v in priors.replace("</td>", "").split("<td>")[1:]]
    np.testing.assert_allclose(shown, model.class_prior_, rtol=1e-3)
    x = [float(v) for v in text.split("x = [")[1].split("]")[0].split(",")]
    assert _decision(text) == str(model.predict([x])[0])


CSV_INPUT = (
    "return Bokeh.index.find_one(_model('csv-file')).shadow_el.querySelector('input[type=file]')"
)


def test_a_csv_is_drawn_and_a_malformed_one_says_why(page, tmp_path):
    import pandas as pd

    from bayesrule import QuadraticDiscriminant
    from bayesrule.datasets import fruit

    driver, _ = page
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b'a,b\n"1,2\n\x00\xff')
    _js(driver, CSV_INPUT).send_keys(str(bad))
    _wait(driver, "return _model('message').text.includes('bad.csv')")
    assert "Traceback" not in _js(driver, "return _model('message').text")
    data = fruit(100, random_state=2)
    frame = pd.DataFrame(data.data, columns=data.feature_names).assign(fruit=data.target)
    good = tmp_path / "fruit.csv"
    frame.to_csv(good, index=False)
    _js(driver, CSV_INPUT).send_keys(str(good))
    _wait(driver, "return _model('csv-label') !== null && _model('csv-label').value === 'fruit'")
    _wait(
        driver, "return _readout() !== null && _readout().includes('<th>apple</th><th>grapefruit')"
    )
    text = _js(driver, "return _readout()")
    x = [float(v) for v in text.split("x = [")[1].split("]")[0].split(",")]
    qda = QuadraticDiscriminant().fit(data.data, data.target)
    assert _decision(text) == str(qda.predict([x])[0])
    # the training points are drawn: a renderer with as many points as rows
    sizes = _js(
        driver,
        "return _model('figure').renderers.map((r) => r.data_source.get_length ? "
        "r.data_source.get_length() : null)",
    )
    assert sum(s for s in sizes if s is not None and s not in (1, 3)) == len(frame)


def test_neyman_pearson_bound_of_two_classes(page, tmp_path):
    import pandas as pd

    from bayesrule.explore.setting import setting_from_table

    driver, _ = page
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        np.r_[rng.normal(0, 1, (150, 2)), rng.normal(2, 1, (150, 2))], columns=["a", "b"]
    ).assign(kind=np.repeat(["noise", "signal"], 150))
    path = tmp_path / "two.csv"
    frame.to_csv(path, index=False)
    _js(driver, CSV_INPUT).send_keys(str(path))
    _wait(driver, "return _readout() !== null && _readout().includes('<th>noise</th>')")
    _js(driver, "_model('np-positive').value = 'signal'")
    before = _js(driver, "return _readout()")
    _js(driver, "_model('use-np').active = true")
    _wait(driver, f"return _readout() !== {before!r} && _readout().includes('Neyman-Pearson')")
    text = _js(driver, "return _readout()")
    setting, _ = setting_from_table(frame)
    from dataclasses import replace

    x = [float(v) for v in text.split("x = [")[1].split("]")[0].split(",")]
    expected = replace(setting, false_alarm=0.05, positive=1).readout(x)
    assert _decision(text) == expected["decision"]
    assert f"false alarm {expected['neyman_pearson']['false_alarm']:.4f}" in text


def test_four_classes_of_ones_own(page):
    driver, _ = page
    before = _js(driver, "return _readout()")
    _js(driver, "_model('n-classes').value = '4'")
    _wait(driver, f"return _readout() !== {before!r} && _readout().includes('<th>class 4</th>')")
    assert _js(driver, "return _model('prior-class 4').value") == pytest.approx(0.25)
    before = _js(driver, "return _readout()")
    _js(driver, "_model('n-classes').value = '2'")
    _wait(driver, f"return _readout() !== {before!r} && !_readout().includes('<th>class 4</th>')")
    header = _js(driver, "return _readout()").split("</tr>")[0]
    assert header.count("<th>") == 3  # the empty corner and two classes
