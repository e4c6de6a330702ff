"""Speed of the semi-naive models next to scikit-learn's CategoricalNB, in one run.

Data: benchmarks/bench.py's ``aode`` size, 100,000 rows x 30 attributes with values
0..4 and 3 classes (:func:`bench.make_categorical_data`). Every row times one operation
of a bayesrule model (``fit`` on the table, ``predict_proba`` of the table) and, in the
same repeat, ``CategoricalNB(alpha=1, min_categories=5)``'s ``predict_proba`` of the
table (its ``fit`` beside the fits), and reports the medians over ``--repeat`` repeats
and the ratio bayesrule / CategoricalNB (lower is faster), with the targets of issue 19:

* ``AODE().predict_proba`` at most 3x CategoricalNB's and at least 4x faster than before
  the lookup plans (``predict_proba, before``: the NumPy scoring per SPODE of bayesrule
  0.1's ``OneDependence._class_major``, timed in the same run; 0.84 s on the issue's
  machine);
* ``AnDE(n=2).predict_proba`` (A2DE) at most 20x CategoricalNB's; where
  ``bayesrule.AnDE`` is missing, the lookup kernel on a plan of A2DE's shape stands in
  (435 components of 28 factors keyed on two parents' slots and a child's code, tables
  of (O + 1)^2 (O + 2) cells per factor: ``a2de-shaped plan``, always timed);
* with ``--weka``, Weka 3.6's AODE trained on the table and scoring it, in a warm JVM
  (``WekaSpeed.java``; Java and ``/usr/share/java/weka.jar``), and bayesrule's fit and
  first predict_proba of a fresh model (which makes its lookup plans: ``fit + first
  predict_proba``) at least 5x faster.

``--busy`` runs a process burning one core beside the timings (as
``benchmarks/mclust_models.py --busy``): bayesrule's threads then share the cores.

Examples::

    .venv/bin/python benchmarks/seminaive_speed.py
    .venv/bin/python benchmarks/seminaive_speed.py --models aode,a2de --repeat 9
    .venv/bin/python benchmarks/seminaive_speed.py --busy
    .venv/bin/python benchmarks/seminaive_speed.py --models aode --weka
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import SIZES, make_categorical_data  # noqa: E402
from sklearn.naive_bayes import CategoricalNB  # noqa: E402

import bayesrule  # noqa: E402
from bayesrule._engines import lookup  # noqa: E402
from bayesrule._engines.threads import n_threads  # noqa: E402

MODELS = ("aode", "tan", "kdb", "a2de", "a2de-shaped")


def _factories() -> dict:
    out = {
        "aode": lambda: bayesrule.AODE(),
        "tan": lambda: bayesrule.TAN(),
        "kdb": lambda: bayesrule.KDB(k=2),
    }
    if hasattr(bayesrule, "AnDE"):
        out["a2de"] = lambda: bayesrule.AnDE(n=2)
    return out


def a2de_shaped_plan(d: int, values: int, C: int, seed: int = 0) -> lookup.Plan:
    """A plan of A2DE's shape: a component per pair of super-parents, one row of cells per
    pair of their slots (O + 1 each), the head cell then each of the other d - 2
    attributes' O + 2 cells; the gate 1 where both parents are available."""
    rng = np.random.default_rng(seed)
    slots, width = values + 1, 1 + (d - 2) * (values + 2)
    rows, gates, starts, cell = [], [], [0], 0
    for t, (a, b) in enumerate(itertools.combinations(range(d), 2)):
        parent = [(a, slots * width, True), (b, width, True)]
        rows.append((cell, parent))
        others = [j for j in range(d) if j not in (a, b)]
        rows += [
            (cell + 1 + i * (values + 2), [*parent, (j, 1, False)]) for i, j in enumerate(others)
        ]
        starts.append(len(rows))
        gates.append((t * slots * slots, [(a, slots, True), (b, 1, True)]))
        cell += slots * slots * width
    usable = np.ones((len(starts) - 1, slots, slots))
    usable[:, -1, :] = usable[:, :, -1] = 0.0
    return lookup.Plan(
        np.log(rng.random((cell, C))),
        lookup.Factors.build(rows),
        np.array(starts),
        gates=lookup.Factors.build(gates),
        gate_table=usable.ravel(),
    )


def before(model, X):
    """``model.predict_proba(X)`` of an AODE as bayesrule scored it before the lookup
    plans: codes column by column, then per SPODE NumPy gathers, a log-sum-exp over
    them and naive Bayes where none is usable, one row block at a time."""
    from scipy.special import logsumexp

    from bayesrule.likelihoods.discrete import network, one_dependence

    def class_major(self, X, relative):
        codes = self._codes(X)
        rows, C = codes.shape[0], self.n_classes_
        scores = np.full((len(self._spodes), C, rows), -np.inf)
        used = np.zeros((len(self._spodes), rows), dtype=bool)
        for t, (p, head, usable, flat, base, stride, others) in enumerate(self._spodes):
            cp = np.minimum(codes[:, p], self._sizes[p])
            used[t] = usable[cp]
            if not used[t].any():
                continue
            index = base + cp[:, None] * stride + codes[:, others]
            s = head[:, cp] + np.stack([np.take(f, index).sum(axis=1) for f in flat])
            scores[t] = np.where(used[t], s, -np.inf)
        count = used.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = logsumexp(scores, axis=0) - np.log(count)
        alone = count == 0
        if alone.any():
            naive = np.zeros((C, int(alone.sum())))
            for j, table in enumerate(self._naive):
                naive += table[:, codes[alone, j]]
            out[:, alone] = naive
        return out

    family = one_dependence.OneDependence
    saved = (family._class_major, family._workers, network.numeric_codes)
    family._class_major, family._workers = class_major, lambda self, n, d: 1
    network.numeric_codes = lambda *args: None
    try:
        return model.predict_proba(X)
    finally:
        family._class_major, family._workers, network.numeric_codes = saved


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def measure(names, X, y, repeat: int) -> list[tuple]:
    """Rows (model, operation, bayesrule's seconds, CategoricalNB's, bayesrule's runs)."""
    nb = CategoricalNB(alpha=1.0, min_categories=5)
    nb_fit = lambda: nb.fit(X, y)  # noqa: E731
    nb_fit()
    nb_proba = lambda: nb.predict_proba(X)  # noqa: E731
    factories = _factories()
    rows = []
    for name in names:
        if name == "a2de-shaped":
            plan = a2de_shaped_plan(X.shape[1], int(X.max()) + 1, int(y.max()) + 1)
            sizes = np.full(X.shape[1], int(X.max()) + 1)
            codes = X.astype(np.intp)
            lookup.score(plan, codes[:100], sizes)  # compiled, and the plan's form made
            score = lambda p=plan, c=codes, s=sizes: lookup.score(p, c, s)  # noqa: E731
            ops = {"score": (score, nb_proba)}
        elif name in factories:
            model = factories[name]().fit(X, y)
            model.predict_proba(X[:100])
            ops = {
                "fit": (lambda m=factories[name]: m().fit(X, y), nb_fit),
                "predict_proba": (lambda m=model: m.predict_proba(X), nb_proba),
            }
            if name == "aode":  # the scoring before the lookup plans, in the same run
                ops["predict_proba, before"] = (lambda m=model: before(m, X), nb_proba)
                # what Weka's train + test is set against: a fresh model's fit and its
                # first predict_proba (which makes the lookup plans)
                fresh = lambda m=factories[name]: m().fit(X, y).predict_proba(X)  # noqa: E731
                ops["fit + first predict_proba"] = (fresh, lambda: (nb_fit(), nb_proba()))
        else:
            print(f"(skipped {name}: not in this bayesrule)")
            continue
        for op, (ours, theirs) in ops.items():
            a, b = [], []
            for _ in range(repeat):  # alternating: background load hits both
                b.append(_timed(theirs))
                a.append(_timed(ours))
            rows.append((name, op, statistics.median(a), statistics.median(b), a))
    return rows


def weka_aode(X, y, repeat: int, jar: str) -> tuple[float, float, float] | None:
    """Medians of Weka 3.6 AODE's build and scoring seconds on the table, warm: runs 2 to
    ``repeat + 1`` of one JVM (:func:`weka_data.time_weka`, as ``weka_compare.py
    --speed``), and the best of those runs' totals; or None without Java or Weka."""
    if not Path(jar).exists():
        print(f"(no Weka at {jar}: apt-get install weka)")
        return None
    import weka_data

    try:
        runs = weka_data.time_weka(jar, X, y, repeat + 1, "weka.classifiers.bayes.AODE")[1:]
    except (RuntimeError, OSError) as exc:
        print(f"(Weka's {exc})")
        return None
    build, test = (statistics.median(r[k] for r in runs) for k in (0, 1))
    return build, test, min(r[0] + r[1] for r in runs)


def report(rows, weka) -> list[str]:
    lines = [
        "| model | operation | bayesrule (s) | CategoricalNB (s) | ratio | target |",
        "|---|---|---:|---:|---:|---|",
    ]
    found = {(name, op): ours for name, op, ours, _, _ in rows}
    runs = {(name, op): times for name, op, _, _, times in rows}
    for name, op, ours, nb, _ in rows:
        target = ""
        if op in ("predict_proba", "score") and name in ("aode", "a2de", "a2de-shaped"):
            bound = 3.0 if name == "aode" else 20.0
            target = f"<= {bound:g}x: {'ok' if ours <= bound * nb else 'MISS'}"
            if name == "aode" and (name, "predict_proba, before") in found:
                gain = found[(name, "predict_proba, before")] / ours
                target += f"; {gain:.1f}x faster than before (4x: {'ok' if gain >= 4 else 'MISS'})"
        lines.append(f"| {name} | {op} | {ours:.3f} | {nb:.3f} | {ours / nb:.2f}x | {target} |")
    if ("aode", "fit + first predict_proba") in found:
        total = found[("aode", "fit + first predict_proba")]
        lines.append("")
        lines.append(f"AODE fit + first predict_proba of the fresh model: {total:.3f} s")
        if weka is not None:
            build, test, weka_best = weka
            gain = (build + test) / total
            best = weka_best / min(runs[("aode", "fit + first predict_proba")])
            status = "ok" if gain >= 5 else "MISS"
            lines.append(
                f"Weka 3.6 AODE (warm JVM) build {build:.3f} s + score {test:.3f} s = "
                f"{build + test:.3f} s: "
                f"bayesrule {gain:.1f}x faster (target 5x: {status}; medians; "
                f"best of the runs on both sides: {best:.1f}x)"
            )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(MODELS), help=f"of {', '.join(MODELS)}")
    parser.add_argument("--repeat", type=int, default=5, help="repeats (medians reported)")
    parser.add_argument("--busy", action="store_true", help="another process burning a core")
    parser.add_argument("--weka", action="store_true", help="also time Weka 3.6's AODE")
    parser.add_argument("--weka-jar", default="/usr/share/java/weka.jar")
    args = parser.parse_args(argv)
    names = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = sorted(set(names) - set(MODELS))
    if unknown:
        parser.error(f"unknown models {unknown}; choose from {', '.join(MODELS)}")
    X, y, _ = make_categorical_data(SIZES["aode"], 0)
    busy = None
    if args.busy:  # one core kept busy by another process, for both libraries
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        rows = measure(names, X, y, args.repeat)
        weka = weka_aode(X, y, args.repeat, args.weka_jar) if args.weka else None
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{X.shape[0]:,} x {X.shape[1]} x {int(y.max()) + 1} classes; medians of "
        f"{args.repeat}; bayesrule threads: {n_threads()}, compiled lookups: "
        f"{lookup.compiled()}; load average at the end: {load:.1f}"
        + ("; beside a process burning one core" if args.busy else "")
    )
    print("\n".join(report(rows, weka)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
