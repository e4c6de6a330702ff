"""SPODE, AODE and TAN on a twelve-row table, checked against a hand computation.

The reference below uses nothing from the library and no numpy: exact ``Fraction``
arithmetic over explicit loops of the rows, with the estimates of the spec
(Webb et al. 2005 for SPODE/AODE, Lidstone tables and the prior ``n_c / n`` for TAN).
Logarithms (mutual information, log-joints) are taken of the exact fractions at the end.

The table: four binary attributes and two classes (7 rows of class 0, 5 of class 1).
``x1`` copies ``x0`` in 11 of the 12 rows (row 6 is the exception), ``x2 = 1`` occurs
4 times and ``x3 = 1`` 3 times, so ``min_count=5`` rules out those super-parent values.
Several pair patterns never occur, e.g. ``(y=1, x0=0, x1=1)``, so smoothing matters.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from bayesrule import AODE, SPODE, TAN, CategoricalNB

#   x0 x1 x2 x3  y
ROWS = [
    (0, 0, 0, 1, 0),  # 1
    (0, 0, 0, 0, 0),  # 2
    (0, 0, 1, 0, 0),  # 3
    (0, 0, 0, 0, 0),  # 4
    (1, 1, 0, 0, 0),  # 5
    (0, 1, 0, 0, 0),  # 6  (x1 != x0)
    (1, 1, 1, 0, 0),  # 7
    (1, 1, 1, 1, 1),  # 8
    (1, 1, 0, 1, 1),  # 9
    (1, 1, 1, 0, 1),  # 10
    (1, 1, 0, 0, 1),  # 11
    (0, 0, 0, 0, 1),  # 12
]
X = np.array([r[:4] for r in ROWS])
Y = np.array([r[4] for r in ROWS])
N, D, K, OJ = 12, 4, 2, 2  # rows, attributes, classes, values of each attribute (O_j)
CLASS = 4  # position of y in a row of ROWS
# queries: (1,1,0,0) is rows 5 and 11; the other two occur nowhere in the table
QUERIES = [(1, 1, 0, 0), (0, 1, 1, 1), (1, 0, 0, 1)]
REL = 1e-12


# ----------------------------------------------------------------- the hand computation
def F(*conditions) -> int:
    """Rows with every (position, value) of ``conditions``; position 4 is the class."""
    return sum(all(row[i] == v for i, v in conditions) for row in ROWS)


def n_class(c) -> int:
    return F((CLASS, c))


def webb_parent(c, p, v, alpha=1) -> Fraction:
    """P(y=c, x_p=v) = (F(c, v) + alpha) / (n + alpha k O_p)."""
    return (F((CLASS, c), (p, v)) + Fraction(alpha)) / (N + Fraction(alpha) * K * OJ)


def lidstone(count, total, alpha=1) -> Fraction:
    return (count + Fraction(alpha)) / (total + Fraction(alpha) * OJ)


#: the default back-off of TAN and SPODE (AODE's is 0: Webb's estimates)
BACKOFF = 5


def child(c, j, u, parent=None, v=None, alpha=1, backoff=0) -> Fraction:
    """P(x_j=u | c, x_parent=v); no parent (or a missing one): P(x_j=u | c). With
    ``backoff`` m > 0, the m-estimate (F(c, v, u) + m P(x_j=u | c)) / (F(c, v) + m)."""
    alone = lidstone(F((CLASS, c), (j, u)), n_class(c), alpha)
    if parent is None or v is None:
        return alone
    count, total = F((CLASS, c), (parent, v), (j, u)), F((CLASS, c), (parent, v))
    if backoff:
        return (count + backoff * alone) / (total + backoff)
    return lidstone(count, total, alpha)


def spode_joint(q, c, p, alpha=1, backoff=0) -> Fraction:
    """Webb's SPODE joint; a missing child (None) drops its factor."""
    out = webb_parent(c, p, q[p], alpha)
    for j in range(D):
        if j != p and q[j] is not None:
            out *= child(c, j, q[j], p, q[p], alpha, backoff)
    return out


def implied_prior(c, parents=range(D), alpha=1) -> Fraction:
    """The class probability the SPODE estimates imply, sum_v P(c, x_p = v), averaged
    over the super-parents: SPODE's and AODE's default prior (here (n_c + 2) / 16)."""
    return sum(sum(webb_parent(c, p, v, alpha) for v in (0, 1)) for p in parents) / len(parents)


def nb_joint(q, c, alpha=1, prior=None) -> Fraction:
    """Naive Bayes; the prior n_c / n unless given."""
    out = Fraction(n_class(c), N) if prior is None else prior
    for j in range(D):
        if q[j] is not None:
            out *= child(c, j, q[j], alpha=alpha)
    return out


def usable(q, min_count) -> list[int]:
    return [p for p in range(D) if q[p] is not None and F((p, q[p])) >= min_count]


def aode_joint(q, c, min_count=1) -> Fraction:
    parents = usable(q, min_count)
    if not parents:
        return nb_joint(q, c, prior=implied_prior(c))
    return sum(spode_joint(q, c, p) for p in parents) / len(parents)


def tan_joint(q, c, parents) -> Fraction:
    """P(c) prod_j P(x_j | c, pa_j); a missing x_j drops out, a missing parent is summed
    out of the counts (P(x_j | c))."""
    out = Fraction(n_class(c), N)
    for j in range(D):
        if q[j] is None:
            continue
        pa = parents[j][0] if parents[j] else None
        out *= child(c, j, q[j], pa, None if pa is None else q[pa], backoff=BACKOFF)
    return out


def posterior(joints) -> list[float]:
    total = sum(joints)
    return [float(j / total) for j in joints]


def log_joints(joint, q) -> list[float]:
    return [math.log(joint(q, c)) for c in range(K)]


def mutual_information(j) -> float:
    out = 0.0
    for c, a in itertools.product(range(K), range(OJ)):
        f = F((CLASS, c), (j, a))
        if f:
            out += f / N * math.log(Fraction(f * N, n_class(c) * F((j, a))))
    return out


def conditional_mi(i, j) -> float:
    out = 0.0
    for c, a, b in itertools.product(range(K), range(OJ), range(OJ)):
        f = F((CLASS, c), (i, a), (j, b))
        if f:
            ratio = Fraction(f * n_class(c), F((CLASS, c), (i, a)) * F((CLASS, c), (j, b)))
            out += f / N * math.log(ratio)
    return out


def is_tree(edges) -> bool:
    component = list(range(D))
    for a, b in edges:
        ca, cb = component[a], component[b]
        if ca == cb:
            return False
        component = [ca if x == cb else x for x in component]
    return True


def max_spanning_tree():
    pairs = list(itertools.combinations(range(D), 2))
    trees = [t for t in itertools.combinations(pairs, D - 1) if is_tree(t)]
    assert len(trees) == D ** (D - 2)  # Cayley: 16 spanning trees on 4 nodes
    weighed = sorted(((sum(conditional_mi(*e) for e in t), t) for t in trees), reverse=True)
    assert weighed[0][0] - weighed[1][0] > 0.02  # a unique maximum, no tie-breaking
    return weighed[0][1]


def directed(edges, root) -> list[tuple[int, ...]]:
    parents: list[tuple[int, ...]] = [()] * D
    reached, frontier = {root}, [root]
    while frontier:
        a = frontier.pop()
        for e in edges:
            if a in e:
                b = e[0] + e[1] - a
                if b not in reached:
                    parents[b] = (a,)
                    reached.add(b)
                    frontier.append(b)
    return parents


# ----------------------------------------------------------------- the counts, by eye
def test_counts_of_the_table_by_eye():
    assert (n_class(0), n_class(1)) == (7, 5)
    assert [F((j, 1)) for j in range(D)] == [6, 7, 4, 3]
    assert sum(r[0] == r[1] for r in ROWS) == 11
    # class 0 (rows 1-7): (x0, x1) = (0,0) in rows 1-4, (0,1) in row 6, (1,1) in rows 5, 7
    assert [F((CLASS, 0), (0, a), (1, b)) for a in (0, 1) for b in (0, 1)] == [4, 1, 0, 2]
    # class 1 (rows 8-12): (0,0) in row 12, (1,1) in rows 8-11, never (0,1) or (1,0)
    assert [F((CLASS, 1), (0, a), (1, b)) for a in (0, 1) for b in (0, 1)] == [1, 0, 0, 4]
    # (x0, x2) in class 1: rows 8, 10 have (1, 1); rows 9, 11 (1, 0); row 12 (0, 0)
    assert [F((CLASS, 1), (0, a), (2, b)) for a in (0, 1) for b in (0, 1)] == [1, 0, 2, 2]
    assert webb_parent(1, 0, 1) == Fraction(4 + 1, 12 + 4)
    assert child(1, 1, 0, 0, 1) == Fraction(0 + 1, 4 + 2)  # a zero count, smoothed


# ----------------------------------------------------------------- SPODE
@pytest.mark.parametrize("j", range(D))
def test_spode_tables(j):
    clf = SPODE(parent=0).fit(X, Y)
    assert clf.parents_ == [(), (0,), (0,), (0,)]
    table = clf.cpt(j)
    if j == 0:  # the super-parent's own table: P(x_0 | c), Lidstone over F(c, x_0)
        counts = [[F((CLASS, c), (0, u)) for u in range(OJ)] for c in range(K)]
        proba = [[float(child(c, 0, u)) for u in range(OJ)] for c in range(K)]
    else:
        counts = [
            [[F((CLASS, c), (0, v), (j, u)) for u in range(OJ)] for v in range(OJ)]
            for c in range(K)
        ]
        proba = [
            [[float(child(c, j, u, 0, v, backoff=BACKOFF)) for u in range(OJ)] for v in range(OJ)]
            for c in range(K)
        ]
    assert table.parents == (() if j == 0 else (0,))
    np.testing.assert_array_equal(table.counts, counts)
    assert table.proba == pytest.approx(np.array(proba), rel=REL)
    webb = [[float(webb_parent(c, 0, v)) for v in range(OJ)] for c in range(K)]
    assert clf.parent_proba(0) == pytest.approx(np.array(webb), rel=REL)


def test_spode_one_query_written_out():
    # q = (0, 1, 1, 1), class 1, super-parent x0 = 0 (class-1 rows with x0 = 0: row 12 only):
    # P(y=1, x0=0) = (1 + 1) / 16; x1=1, x2=1, x3=1 never occur with it: (0 + 1) / (1 + 2) each
    assert spode_joint((0, 1, 1, 1), 1, 0) == Fraction(2, 16) * Fraction(1, 3) ** 3
    # class 0, x0 = 0 in rows 1-4 and 6: x1=1 once (row 6), x2=1 once (row 3), x3=1 once (row 1)
    assert spode_joint((0, 1, 1, 1), 0, 0) == Fraction(6, 16) * Fraction(2, 7) ** 3


@pytest.mark.parametrize("alpha", [1, Fraction(1, 2)])
def test_spode_joint_and_posterior(alpha):
    clf = SPODE(parent=0, alpha=float(alpha)).fit(X, Y)
    queries = QUERIES if alpha == 1 else QUERIES[1:2]
    joint = clf.predict_joint_log_proba(np.array(queries))
    post = clf.predict_proba(np.array(queries))
    for row, q in enumerate(queries):
        hand = [spode_joint(q, c, 0, alpha, BACKOFF) for c in range(K)]
        assert joint[row].tolist() == pytest.approx([math.log(h) for h in hand], rel=REL)
        assert post[row].tolist() == pytest.approx(posterior(hand), rel=REL)


def test_spode_missing_super_parent_is_naive_bayes():
    clf = SPODE(parent=0).fit(X, Y)
    q = (None, 1, 1, 1)
    got = clf.predict_joint_log_proba(np.array([q], dtype=object))[0]
    hand = [nb_joint(q, c, prior=implied_prior(c, parents=[0])) for c in range(K)]
    assert got.tolist() == pytest.approx([math.log(h) for h in hand], rel=REL)
    assert clf.class_prior_.tolist() == [Fraction(9, 16), Fraction(7, 16)]


# ----------------------------------------------------------------- AODE
def test_which_super_parents_count():
    assert usable((0, 1, 1, 1), 1) == [0, 1, 2, 3]
    assert usable((0, 1, 1, 1), 5) == [0, 1]  # x2 = 1 has count 4, x3 = 1 count 3
    assert usable((1, 0, 0, 1), 5) == [0, 1, 2]  # x1 = 0 has count 5: just enough
    assert usable((1, 0, 0, 1), 6) == [0, 2]
    assert usable((1, 0, 1, 1), 7) == []  # counts 6, 5, 4, 3: naive Bayes


@pytest.mark.parametrize("min_count", [1, 5, 6, 7])
def test_aode_joint_and_posterior(min_count):
    queries = [*QUERIES, (1, 0, 1, 1)]
    clf = AODE(min_count=min_count).fit(X, Y)
    joint = clf.predict_joint_log_proba(np.array(queries))
    post = clf.predict_proba(np.array(queries))
    for row, q in enumerate(queries):
        hand = [aode_joint(q, c, min_count) for c in range(K)]
        assert joint[row].tolist() == pytest.approx([math.log(h) for h in hand], rel=REL)
        assert post[row].tolist() == pytest.approx(posterior(hand), rel=REL)


def test_aode_with_every_super_parent_is_the_mean_of_the_spodes():
    q = (0, 1, 1, 1)
    spodes = [
        SPODE(parent=p, backoff=0).fit(X, Y).predict_joint_log_proba([q])[0] for p in range(D)
    ]
    mean = np.log(np.mean(np.exp(spodes), axis=0))
    assert AODE().fit(X, Y).predict_joint_log_proba([q])[0] == pytest.approx(mean, rel=REL)
    hand = [sum(spode_joint(q, c, p) for p in range(D)) / 4 for c in range(K)]
    assert mean.tolist() == pytest.approx([math.log(h) for h in hand], rel=REL)


def test_aode_no_super_parent_is_naive_bayes_under_its_prior():
    clf = AODE(min_count=13).fit(X, Y)  # no value occurs 13 times
    assert clf.class_prior_.tolist() == pytest.approx([9 / 16, 7 / 16], rel=REL)
    nb = CategoricalNB(alpha=1.0, priors=clf.class_prior_).fit(X, Y)
    for q in QUERIES:
        hand = [nb_joint(q, c, prior=implied_prior(c)) for c in range(K)]
        assert clf.predict_proba([q])[0].tolist() == pytest.approx(posterior(hand), rel=REL)
        assert nb.predict_proba([q])[0].tolist() == pytest.approx(posterior(hand), rel=REL)
        got = clf.predict_joint_log_proba([q])[0]
        assert got.tolist() == pytest.approx([math.log(h) for h in hand], rel=REL)


@pytest.mark.parametrize("as_float", [False, True])
def test_aode_missing_attribute(as_float):
    """x2 missing: the SPODEs of x0, x1, x3, each without x2's factor."""
    queries = [(0, 1, None, 1), (1, 1, None, 0)]
    if as_float:
        Xq = np.array([[np.nan if v is None else v for v in q] for q in queries], dtype=float)
    else:
        Xq = np.array(queries, dtype=object)
    clf = AODE().fit(X, Y)
    joint, post = clf.predict_joint_log_proba(Xq), clf.predict_proba(Xq)
    for row, q in enumerate(queries):
        assert usable(q, 1) == [0, 1, 3]
        hand = [sum(spode_joint(q, c, p) for p in (0, 1, 3)) / 3 for c in range(K)]
        assert hand == [aode_joint(q, c) for c in range(K)]
        assert joint[row].tolist() == pytest.approx([math.log(h) for h in hand], rel=REL)
        assert post[row].tolist() == pytest.approx(posterior(hand), rel=REL)


# ----------------------------------------------------------------- TAN
def test_tan_information_and_structure():
    clf = TAN().fit(X, Y)
    mi = [mutual_information(j) for j in range(D)]
    assert clf.mutual_information_.tolist() == pytest.approx(mi, rel=REL, abs=1e-15)
    cmi = [[conditional_mi(i, j) if i != j else 0.0 for j in range(D)] for i in range(D)]
    assert clf.conditional_mutual_information_.tolist() == [
        pytest.approx(r, rel=REL, abs=1e-15) for r in cmi
    ]
    root = max(range(D), key=lambda j: mi[j])
    assert sorted(mi)[-1] - sorted(mi)[-2] > 0.05  # a clear root
    edges = max_spanning_tree()
    assert (root, edges) == (0, ((0, 1), (0, 2), (1, 3)))
    assert clf.parents_ == directed(edges, root) == [(), (0,), (0,), (1,)]


@pytest.mark.parametrize("j", range(D))
def test_tan_tables(j):
    clf = TAN().fit(X, Y)
    pa = clf.parents_[j]
    table = clf.cpt(j)
    assert table.parents == pa
    if not pa:
        counts = [[F((CLASS, c), (j, u)) for u in range(OJ)] for c in range(K)]
        proba = [[float(child(c, j, u)) for u in range(OJ)] for c in range(K)]
    else:
        (p,) = pa
        counts = [
            [[F((CLASS, c), (p, v), (j, u)) for u in range(OJ)] for v in range(OJ)]
            for c in range(K)
        ]
        proba = [
            [[float(child(c, j, u, p, v, backoff=BACKOFF)) for u in range(OJ)] for v in range(OJ)]
            for c in range(K)
        ]
    np.testing.assert_array_equal(table.counts, counts)
    assert table.proba == pytest.approx(np.array(proba), rel=REL)


def test_tan_joint_and_posterior():
    parents = [(), (0,), (0,), (1,)]
    # q = (0, 1, 1, 1), class 1: P(c)=5/12; x0=0: (1+1)/(5+2); a child given its parent
    # backs off to P(x_j | c) with weight 5: x1=1|x0=0 (class-1 rows with x0=0: row 12
    # only, x1=0): (0 + 5 P(x1=1|1)) / (1 + 5) with P(x1=1|1) = (4+1)/(5+2); x2=1|x0=0:
    # (0 + 5 (2+1)/(5+2)) / (1 + 5); x3=1|x1=1 (rows 8-11, x3=1 in 8, 9): (2 + 5 (2+1)/7) / 9
    assert tan_joint((0, 1, 1, 1), 1, parents) == Fraction(5, 12) * Fraction(2, 7) * Fraction(
        25, 42
    ) * Fraction(5, 14) * Fraction(29, 63)
    clf = TAN().fit(X, Y)
    joint, post = clf.predict_joint_log_proba(QUERIES), clf.predict_proba(QUERIES)
    for row, q in enumerate(QUERIES):
        hand = [tan_joint(q, c, parents) for c in range(K)]
        assert joint[row].tolist() == pytest.approx([math.log(h) for h in hand], rel=REL)
        assert post[row].tolist() == pytest.approx(posterior(hand), rel=REL)


@pytest.mark.parametrize("as_float", [False, True])
def test_tan_missing_values(as_float):
    """A missing leaf (x3) drops out; a missing x1 (x3's parent) drops out and x3 uses
    P(x3 | c); a missing root (x0) makes x1 and x2 use P(x | c)."""
    parents = [(), (0,), (0,), (1,)]
    queries = [(1, 1, 0, None), (0, None, 1, 1), (None, 1, 1, 0)]
    # by hand, class 0 of the second: 7/12 * P(x0=0|0) * P(x2=1|0,x0=0) * P(x3=1|0)
    # = 7/12 * (5+1)/(7+2) * (1 + 5 (2+1)/(7+2))/(5+5) * (1+1)/(7+2): x3's parent missing,
    # its table given the class alone
    assert tan_joint(queries[1], 0, parents) == Fraction(7, 12) * Fraction(6, 9) * Fraction(
        4, 15
    ) * Fraction(2, 9)
    if as_float:
        Xq = np.array([[np.nan if v is None else v for v in q] for q in queries], dtype=float)
    else:
        Xq = np.array(queries, dtype=object)
    clf = TAN().fit(X, Y)
    joint, post = clf.predict_joint_log_proba(Xq), clf.predict_proba(Xq)
    for row, q in enumerate(queries):
        hand = [tan_joint(q, c, parents) for c in range(K)]
        assert joint[row].tolist() == pytest.approx([math.log(h) for h in hand], rel=REL)
        assert post[row].tolist() == pytest.approx(posterior(hand), rel=REL)
