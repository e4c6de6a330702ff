"""Hidden naive Bayes: Weka 3.6's posteriors, the formulas by hand, missing values, refusals.

The Weka numbers below were computed once with Weka 3.6 (Debian package ``weka``) and are
kept here as literals, so the test runs without Java. They came from (ARFF files of the
rows below; class: the last attribute, values declared in the order seen below)::

    printf 'weather\\tweather.nominal.arff\\tweather.nominal.arff\\n...' > list.txt
    java -cp /usr/share/java/weka.jar benchmarks/WekaFolds.java list.txt out.txt \\
        weka.classifiers.bayes.HNB

(``WekaFolds`` prints ``distributionForInstance`` in full precision; weather.nominal.arff
and contact-lenses.arff are Weka's examples in /usr/share/doc/weka/examples, trained and
tested on all their rows; "synthetic" is trained on :data:`SYNTHETIC` and tested on
:func:`_synthetic_test`.)
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bayesrule import HNB

WEATHER = [
    r.split(",")
    for r in """sunny,hot,high,FALSE,no sunny,hot,high,TRUE,no overcast,hot,high,FALSE,yes
    rainy,mild,high,FALSE,yes rainy,cool,normal,FALSE,yes rainy,cool,normal,TRUE,no
    overcast,cool,normal,TRUE,yes sunny,mild,high,FALSE,no sunny,cool,normal,FALSE,yes
    rainy,mild,normal,FALSE,yes sunny,mild,normal,TRUE,yes overcast,mild,high,TRUE,yes
    overcast,hot,normal,FALSE,yes rainy,mild,high,TRUE,no""".split()
]
#: Weka's P(yes | x) of the 14 rows (its order of classes: yes, no)
WEATHER_YES = [
    0.06442935116183891, 0.0776265248101697, 0.8883552228108865, 0.8176539758235963,
    0.8405440053344053, 0.15210251217346463, 0.7705468023949764, 0.21469347099472655,
    0.7820522953666755, 0.9323739663298743, 0.9029952125910576, 0.8668369078185556,
    0.9549950679719972, 0.2838751103306424,
]  # fmt: skip

LENSES_CLASSES = ["none", "soft", "none", "hard", "none", "soft", "none", "hard", "none", "soft",
                  "none", "hard", "none", "soft", "none", "none", "none", "none", "none", "hard",
                  "none", "soft", "none", "none"]  # fmt: skip
#: Weka's (P(soft), P(hard), P(none)) of the first 8 rows of contact-lenses.arff
LENSES = [
    [0.09319438275613114, 0.02522886277092461, 0.8815767544729443],
    [0.8137157796910333, 0.09092152865896884, 0.09536269164999779],
    [0.05010548788729377, 0.08624597502421762, 0.8636485370884885],
    [0.14050111510728802, 0.7584402238404369, 0.10105866105227508],
    [0.10704230357003092, 0.06979525383902149, 0.8231624425909476],
    [0.7393904562661509, 0.18966813568332436, 0.0709414080505248],
    [0.031233377295000562, 0.09536826235206519, 0.8733983603529343],
    [0.09520240718387979, 0.7827715914452366, 0.12202600137088361],
]

#: (a, b, c, d, class) codes; c is a copy of the class, so its conditional information
#: with every other attribute is 0: Weka gives it P(c | class) (the fallback)
SYNTHETIC = [[2, 1, 1, 1, 1], [1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [1, 0, 0, 1, 0], [0, 0, 0, 1, 0],
             [0, 1, 1, 1, 1], [0, 0, 1, 0, 1], [0, 0, 1, 0, 1], [2, 0, 0, 2, 0], [0, 1, 0, 2, 0],
             [0, 0, 0, 1, 0], [1, 1, 0, 2, 0], [2, 0, 1, 0, 1], [2, 1, 0, 1, 0], [2, 1, 0, 0, 0],
             [0, 0, 0, 0, 0], [0, 1, 1, 2, 1], [1, 1, 1, 0, 1], [0, 0, 0, 0, 0], [2, 1, 0, 0, 0],
             [2, 0, 0, 2, 0], [0, 1, 0, 2, 0], [1, 0, 1, 2, 1], [1, 1, 1, 2, 1]]  # fmt: skip
#: Weka's P(no | x) of the first 12 test rows (a, b, c, d in itertools.product order)
SYNTHETIC_NO = [
    0.9059085116155614, 0.9956078951474401, 0.9803749177302297, 0.016083368355130835,
    0.2779042213679093, 0.07818263373138051, 0.9782714647928024, 0.8962878432954797,
    0.9671633343978077, 0.07101078490697227, 0.014460279193145652, 0.047624840910003456,
]  # fmt: skip


def _lenses():
    ages = ["young", "pre-presbyopic", "presbyopic"]
    rows = itertools.product(ages, ["myope", "hypermetrope"], ["no", "yes"], ["reduced", "normal"])
    return np.array(list(rows), dtype=object), np.array(LENSES_CLASSES)


def _synthetic_test():
    rows = itertools.product(range(3), range(2), range(2), range(3))
    return np.array([[f"a{a}", f"b{b}", f"c{c}", f"d{d}"] for a, b, c, d in rows], dtype=object)


def _synthetic():
    codes = np.array(SYNTHETIC)
    X = np.array([[f"{n}{v}" for n, v in zip("abcd", r, strict=True)] for r in codes[:, :4]])
    return X.astype(object), np.where(codes[:, 4] == 1, "yes", "no")


def test_weather_posteriors_equal_wekas():
    X = np.array([r[:4] for r in WEATHER], dtype=object)
    y = np.array([r[4] for r in WEATHER])
    P = HNB().fit(X, y).predict_proba(X)
    np.testing.assert_allclose(P[:, 1], WEATHER_YES, rtol=0, atol=1e-13)  # classes no, yes


def test_contact_lenses_posteriors_equal_wekas():
    X, y = _lenses()
    clf = HNB().fit(X, y)
    P = clf.predict_proba(X[:8])
    order = [list(clf.classes_).index(c) for c in ("soft", "hard", "none")]
    np.testing.assert_allclose(P[:, order], LENSES, rtol=0, atol=1e-13)


def test_an_attribute_without_information_falls_back_as_wekas():
    X, y = _synthetic()
    clf = HNB().fit(X, y)
    # c copies the class: no weight as anyone's hidden parent, and no hidden parent
    np.testing.assert_array_equal(clf.weights_[2], 0.0)
    np.testing.assert_array_equal(clf.weights_[:, 2], 0.0)
    np.testing.assert_allclose(clf.weights_[:, [0, 1, 3]].sum(axis=0), 1.0, rtol=1e-15)
    P = clf.predict_proba(_synthetic_test()[:12])
    np.testing.assert_allclose(P[:, 0], SYNTHETIC_NO, rtol=0, atol=1e-13)


# ---------------------------------------------------------------------------- by hand
def _by_hand(X, y, Xt, m, unseen="smooth"):
    """The posteriors of the module docstring, written out with loops: counts over the
    rows where the attributes involved are observed, a missing or unseen attribute
    leaving the hidden parents (weights renormalised), a missing one dropping out."""
    n, d = X.shape
    classes = np.unique(y)
    C = classes.size
    seen = [sorted({v for v in X[:, j] if v is not None}) for j in range(d)]

    def cmi(i, j):
        rows = [r for r in range(n) if X[r, i] is not None and X[r, j] is not None]
        N = len(rows)
        total = 0.0
        for c in classes:
            rc = [r for r in rows if y[r] == c]
            for a in seen[i]:
                for b in seen[j]:
                    nab = sum(X[r, i] == a and X[r, j] == b for r in rc)
                    if nab == 0:
                        continue
                    na = sum(X[r, i] == a for r in rc)
                    nb = sum(X[r, j] == b for r in rc)
                    total += nab / N * np.log(nab * len(rc) / (na * nb))
        return total

    info = np.array([[cmi(i, j) if i != j else 0.0 for j in range(d)] for i in range(d)])
    prior = np.array([(np.sum(y == c) + m / C) / (n + m) for c in classes])
    out = []
    for x in Xt:
        joint = np.log(prior)
        for k, c in enumerate(classes):
            for j in range(d):
                size = len(seen[j])
                if x[j] is None or (x[j] not in seen[j] and unseen == "ignore"):
                    continue

                def p(rows, value=x[j], j=j, size=size):
                    hits = sum(X[r, j] == value for r in rows)
                    return (hits + m / size) / (len(rows) + m)

                class_rows = [r for r in range(n) if y[r] == c and X[r, j] is not None]
                num = den = 0.0
                for i in range(d):
                    if i == j or x[i] is None or x[i] not in seen[i]:
                        continue
                    w = info[i, j] / sum(info[q, j] for q in range(d) if q != j)
                    num += w * p([r for r in class_rows if X[r, i] == x[i]])
                    den += w
                joint[k] += np.log(num / den if den > 0 else p(class_rows))
        out.append(np.exp(joint - np.logaddexp.reduce(joint)))
    return np.array(out)


def _data_with_holes(seed, n=60):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = np.empty((n, 4), dtype=object)
    X[:, 0] = np.array(["p", "q", "r"])[(y + rng.integers(0, 2, n)) % 3]
    X[:, 1] = np.array(["s", "t"])[(rng.random(n) < 0.3 + 0.2 * y).astype(int)]
    X[:, 2] = np.array(["u", "v", "w"])[rng.integers(0, 3, n)]
    X[:, 3] = np.where(X[:, 0] == "p", "x", np.where(rng.random(n) < 0.5, "x", "z"))
    X[rng.random(X.shape) < 0.1] = None
    return X, np.array(["ant", "bee", "cat"])[y]


@pytest.mark.parametrize("m", [1.0, 0.5])
def test_posteriors_equal_the_formulas_by_hand_with_missing_values(m):
    X, y = _data_with_holes(0)
    Xt, _ = _data_with_holes(1, n=25)
    Xt[0] = [None, "t", None, None]  # one attribute left: no hidden parent
    Xt[1] = ["p", "new", "u", None]  # a value never seen: counts 0 (smooth)
    Xt[2] = [None, None, None, None]  # the prior
    expected = _by_hand(X, y, Xt, m)
    got = HNB(m=m).fit(X, y).predict_proba(Xt)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(
        HNB(m=m, unseen="ignore").fit(X, y).predict_proba(Xt),
        _by_hand(X, y, Xt, m, unseen="ignore"),
        rtol=1e-12,
        atol=1e-14,
    )


def test_tables_and_weights_are_the_m_estimates_of_the_counts():
    X, y = _data_with_holes(2)
    clf = HNB(m=2.0).fit(X, y)
    table = clf.cpt(0, parents=(1,))
    F = table.counts  # (C, O_1, O_0)
    expected = (F + 2.0 / F.shape[-1]) / (F.sum(axis=-1, keepdims=True) + 2.0)
    np.testing.assert_allclose(table.proba, expected, rtol=1e-15)
    alone = clf.cpt(3)
    np.testing.assert_allclose(
        alone.proba, (alone.counts + 1.0) / (alone.counts.sum(axis=1, keepdims=True) + 2.0)
    )
    info = clf.conditional_mutual_information_
    np.testing.assert_allclose(clf.weights_, info / info.sum(axis=0), rtol=1e-14)
    n = len(y)
    counts = np.array([np.sum(y == c) for c in clf.classes_])
    np.testing.assert_allclose(clf.class_prior_, (counts + 2.0 / 3) / (n + 2.0), rtol=1e-15)


def test_weights_and_priors_follow_sample_weights_as_repeated_rows():
    X, y = _data_with_holes(3)
    w = np.random.default_rng(4).integers(0, 3, len(y))
    a = HNB().fit(X, y, sample_weight=w)
    b = HNB().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.weights_, b.weights_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------- refusals
def test_no_density_no_evidence_no_draws():
    X, y = _synthetic()
    clf = HNB().fit(X, y)
    for call in (
        lambda: clf.log_evidence(X),
        lambda: clf.bic(X, y),
        lambda: clf.aic(X, y),
        lambda: clf.sample(5, random_state=0),
    ):
        with pytest.raises(TypeError, match="normalised density"):
            call()


@pytest.mark.parametrize(
    "m, error, match",
    [(-1.0, ValueError, "m must be a finite number >= 0"), ("1", TypeError, "m must be a number")],
)
def test_bad_m_is_refused_naming_it(m, error, match):
    X, y = _synthetic()
    with pytest.raises(error, match=match):
        HNB(m=m).fit(X, y)


def test_zero_m_refuses_a_row_impossible_in_every_class():
    X, y = _synthetic()
    clf = HNB(m=0.0).fit(X, y)
    with pytest.raises(ValueError, match="Set m > 0"):
        clf.predict_proba(np.array([["a0", "b0", "c2", "d0"]], dtype=object))
