"""``smoothing="m-estimate"``: Weka's AODEsr/WAODE estimates, checked by hand.

With m = ``alpha`` pseudo-rows spread evenly over a table's cells (Cestnik's m-estimate,
uniform prior):

    P(y, x_p) = (F(y, x_p) + m / (C O_p)) / (N_p + m),
    P(x_j | y, x_p) = (F(y, x_p, x_j) + m / O_j) / (F(y, x_p) + m).

The hand computation below uses exact fractions over the rows of a small table with
attributes of 2, 3 and 2 values (so that ``m / O_j`` differs between them).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from bayesrule import AODE, SPODE, TAN, WAODE, AnDE, CategoricalNB

#   x0 x1 x2  y
ROWS = [
    (0, 0, 1, 0),
    (0, 1, 0, 0),
    (0, 2, 0, 0),
    (1, 0, 1, 0),
    (0, 0, 0, 0),
    (1, 2, 1, 1),
    (1, 1, 1, 1),
    (1, 2, 0, 1),
    (0, 2, 1, 1),
]
X = np.array([r[:3] for r in ROWS])
Y = np.array([r[3] for r in ROWS])
SIZES, C, N = (2, 3, 2), 2, len(ROWS)
REL = 1e-12


def F(*conditions) -> int:
    """Rows with every (position, value) of ``conditions``; position 3 is the class."""
    return sum(all(row[i] == v for i, v in conditions) for row in ROWS)


def joint_parent(c, p, v, m) -> Fraction:
    return (F((3, c), (p, v)) + Fraction(m) / (C * SIZES[p])) / (N + Fraction(m))


def child(c, j, u, p, v, m) -> Fraction:
    return (F((3, c), (p, v), (j, u)) + Fraction(m) / SIZES[j]) / (F((3, c), (p, v)) + m)


def spode_joint(q, c, p, m) -> Fraction:
    out = joint_parent(c, p, q[p], m)
    for j in range(3):
        if j != p:
            out *= child(c, j, q[j], p, q[p], m)
    return out


QUERIES = [(0, 1, 1), (1, 0, 0), (1, 2, 1)]


@pytest.mark.parametrize("m", [1, Fraction(1, 2), 3])
def test_aode_m_estimates_by_hand(m):
    clf = AODE(smoothing="m-estimate", alpha=float(m), backoff=0).fit(X, Y)
    joint = clf.predict_joint_log_proba(np.array(QUERIES))
    post = clf.predict_proba(np.array(QUERIES))
    for row, q in enumerate(QUERIES):
        hand = [sum(spode_joint(q, c, p, m) for p in range(3)) / 3 for c in range(C)]
        assert joint[row].tolist() == pytest.approx([math.log(h) for h in hand], rel=REL)
        total = sum(hand)
        assert post[row].tolist() == pytest.approx([float(h / total) for h in hand], rel=REL)


def test_spode_m_estimate_tables_by_hand():
    clf = SPODE(parent=1, smoothing="m-estimate", alpha=2.0, backoff=0).fit(X, Y)
    cpt = clf.cpt(0)
    assert cpt.parents == (1,)
    counts, table = cpt.counts, cpt.proba
    for c in range(C):
        for v in range(3):
            for u in range(2):
                assert counts[c, v, u] == F((3, c), (1, v), (0, u))
                assert table[c, v, u] == pytest.approx(float(child(c, 0, u, 1, v, 2)), rel=REL)


def test_m_estimate_is_lidstone_with_alpha_over_the_cells():
    """One mechanism: on a table of O_j values, m-estimates with m = alpha are the
    Lidstone estimates with alpha / O_j (all attributes binary here)."""
    Xb = X[:, [0, 2]]
    m_est = TAN(smoothing="m-estimate", alpha=1.0, backoff=0).fit(Xb, Y)
    lid = TAN(alpha=0.5, backoff=0).fit(Xb, Y)
    np.testing.assert_allclose(
        m_est.predict_joint_log_proba(Xb[:4]) - np.log(m_est.class_prior_),
        lid.predict_joint_log_proba(Xb[:4]) - np.log(lid.class_prior_),
        rtol=1e-12,
    )


def test_every_semi_naive_model_takes_it_and_posteriors_sum_to_one():
    for est in (
        AODE(smoothing="m-estimate"),
        WAODE(smoothing="m-estimate", min_count=0),
        AnDE(n=2, smoothing="m-estimate"),
        TAN(smoothing="m-estimate"),
    ):
        proba = est.fit(X, Y).predict_proba(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
        assert np.isfinite(proba).all() and (proba > 0).all()


def test_an_unknown_smoothing_names_the_choices():
    with pytest.raises(ValueError, match="'lidstone', 'm-estimate', 'hdp'"):
        AODE(smoothing="laplace").fit(X, Y)
    assert "smoothing" not in CategoricalNB().get_params()  # naive Bayes: alpha only


def test_samples_follow_the_m_estimate_super_parent():
    clf = SPODE(parent=0, smoothing="m-estimate", alpha=4.0, backoff=0).fit(X, Y)
    draws = clf.sample(60_000, random_state=0)[0]
    num = np.array([[F((3, c), (0, v)) + 4.0 / (C * 2) for v in range(2)] for c in range(C)])
    expected = num / num.sum(axis=1, keepdims=True)  # P(x_0 | y) of the joint's cells
    labels = clf.sample(60_000, random_state=0)[1]
    for c in range(C):
        share = np.mean(draws[labels == c, 0] == 1)
        assert share == pytest.approx(expected[c, 1], abs=0.01)
