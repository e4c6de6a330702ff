"""The compiled lookup kernel (``_engines/_lookup_kernels.py``) against the NumPy reference
of :func:`bayesrule._engines.lookup.score` and against the docstring's formula written out
row by row; its checks of plans and codes; its threads."""

import itertools
import math

import numba  # noqa: F401  (a test extra: the compiled path must be the one tested)
import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from bayesrule._engines import _lookup_kernels as kernels
from bayesrule._engines import lookup
from bayesrule._engines.lookup import Factors, Plan, score, score_reference
from bayesrule._engines.lookup_flat import flat_plan
from bayesrule.stats.values import value_codes


@pytest.fixture(autouse=True)
def compiled_for_any_size(monkeypatch):
    monkeypatch.setattr(lookup, "COMPILED_FROM", 0)


def random_plan(rng, sizes, C, *, components, gates=True, weights=True, minus_inf=0.0):
    """A plan of ``components`` components over columns of ``sizes``: each an AnDE-like
    block (one or two parents' slots outermost, then a factor per other column with its
    own code), or factors of their own layout (up to three terms of either kind)."""
    d = sizes.size
    rows, starts, cell = [], [0], 0
    for t in range(components):
        if t % 3 == 2:  # a network-like component: each factor its own table
            for j in rng.permutation(d)[: rng.integers(1, d + 1)].tolist():
                keys = [(int(a), True) for a in rng.choice(d, rng.integers(0, 3), replace=False)]
                keys.append((j, False))
                shape = [int(sizes[a]) + (1 if slot else 2) for a, slot in keys]
                mults = np.cumprod([1, *shape[::-1]])[::-1][1:].tolist()
                terms = [(a, m, slot) for (a, slot), m in zip(keys, mults, strict=True)]
                rows.append((cell, terms))
                cell += int(np.prod(shape))
        else:
            parents = rng.choice(d, 1 + t % 3, replace=False).tolist()
            others = [j for j in range(d) if j not in parents]
            width = 1 + int((sizes[others] + 2).sum())
            strides = np.cumprod([1, *(sizes[parents[::-1]] + 1)])[::-1][1:] * width
            shared = [(p, int(m), True) for p, m in zip(parents, strides, strict=True)]
            rows.append((cell, shared))
            at = 1
            for j in others:
                rows.append((cell + at, [*shared, (j, 1, False)]))
                at += int(sizes[j]) + 2
            cell += int(np.prod(sizes[parents] + 1)) * width
        starts.append(len(rows))
    table = np.log(rng.random((cell, C)))
    if minus_inf:
        table[rng.random(table.shape) < minus_inf] = -np.inf
    gate_factors = gate_table = None
    if gates:  # as AODE's: on one parent's slot, 0 where it is unavailable (its last)
        gate_rows, ends, at = [], [], 0
        for _ in range(components):
            p = int(rng.choice(np.flatnonzero(sizes > 0)))
            gate_rows.append((at, [(p, 1, True)]))
            at += int(sizes[p]) + 1
            ends.append(at - 1)
        gate_table = np.where(rng.random(at) < 0.3, 0.0, rng.random(at) * 2)
        gate_table[ends] = 0.0
        gate_factors = Factors.build(gate_rows)
    log_weight = rng.normal(size=components) if weights else None
    return Plan(table, Factors.build(rows), np.array(starts), log_weight, gate_factors, gate_table)


def random_codes(rng, sizes, n):
    """Codes of n rows: values, unseen (O_j) and missing (O_j + 1) values; the first
    row all missing."""
    codes = np.column_stack([rng.integers(0, s + 2, n) for s in sizes.tolist()])
    codes[0] = sizes + 1
    return codes


def written_out(plan, codes, sizes):
    """The formula of ``lookup``'s docstring, row by row in Python floats."""
    C = plan.table.shape[1]
    T = plan.n_components
    out = np.empty((C, codes.shape[0]))
    used = np.empty(codes.shape[0])

    def cell(factors, f, row):
        at = int(factors.base[f])
        for col, mult, slot in zip(
            factors.cols[f], factors.mults[f], factors.parent[f], strict=True
        ):
            if col >= 0:
                at += int(min(row[col], sizes[col]) if slot else row[col]) * int(mult)
        return at

    for i, row in enumerate(codes.tolist()):
        sums = [
            [sum(plan.table[cell(plan.factors, f, row), c] for f in range(a, b)) for c in range(C)]
            for a, b in itertools.pairwise(plan.starts.tolist())
        ]
        if T == 1 and plan.gates is None:
            out[:, i], used[i] = sums[0], 1.0
            continue
        w = [1.0] * T if plan.log_weight is None else [math.exp(v) for v in plan.log_weight]
        g = (
            [1.0] * T
            if plan.gates is None
            else [plan.gate_table[cell(plan.gates, t, row)] for t in range(T)]
        )
        used[i] = sum(wt * gt for wt, gt in zip(w, g, strict=True))
        for c in range(C):
            mix = sum(
                wt * gt * math.exp(s[c]) for wt, gt, s in zip(w, g, sums, strict=True) if gt > 0
            )
            out[c, i] = math.log(mix / used[i]) if used[i] > 0 and mix > 0 else -np.inf
    return out, used


def assert_same_scores(got, want, rtol=1e-12):
    (a, used_a), (b, used_b) = got, want
    np.testing.assert_allclose(used_a, used_b, rtol=1e-14)
    np.testing.assert_array_equal(np.isinf(a), np.isinf(b))
    finite = np.isfinite(b)
    np.testing.assert_allclose(a[finite], b[finite], rtol=rtol, atol=1e-13)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("C", [1, 2, 3, 5, 9])
def test_the_kernel_equals_the_formula_and_the_reference(seed, C):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 5, 6)  # a column never observed (O_j = 0) included
    plan = random_plan(rng, sizes, C, components=5, minus_inf=0.05 * (seed % 2))
    codes = random_codes(rng, sizes, 300)
    got = score(plan, codes, sizes)
    assert_same_scores(got, written_out(plan, codes, sizes))
    assert_same_scores(got, score_reference(plan, codes, sizes))
    assert (got[1] == 0).any() and (got[1] > 0).any()  # rows without a usable component


@pytest.mark.parametrize("gates,weights", [(False, False), (False, True), (True, False)])
def test_plans_without_gates_or_weights(gates, weights):
    rng = np.random.default_rng(7)
    sizes = np.array([3, 1, 4, 2])
    plan = random_plan(rng, sizes, 3, components=4, gates=gates, weights=weights)
    codes = random_codes(rng, sizes, 200)
    assert_same_scores(score(plan, codes, sizes), written_out(plan, codes, sizes))


def test_one_component_without_gates_is_the_sum_itself():
    rng = np.random.default_rng(3)
    sizes = np.array([2, 3, 4])
    plan = random_plan(rng, sizes, 4, components=1, gates=False, weights=True, minus_inf=0.1)
    codes = random_codes(rng, sizes, 500)
    out, used = score(plan, codes, sizes)
    want, _ = written_out(plan, codes, sizes)  # the plain sum: weights play no part
    np.testing.assert_array_equal(used, 1.0)
    np.testing.assert_array_equal(np.isinf(out), np.isinf(want))
    np.testing.assert_allclose(out[np.isfinite(want)], want[np.isfinite(want)], rtol=1e-13)
    assert np.isinf(out).any()


def test_a_class_impossible_in_every_component_is_minus_inf():
    sizes = np.array([2, 2])
    rows = [(0, [(0, 4, True), (1, 1, False)]), (12, [(1, 4, True), (0, 1, False)])]
    table = np.log(np.full((24, 2), 0.5))
    table[:, 1] = -np.inf  # class 1 has probability 0 everywhere (alpha = 0)
    plan = Plan(table, Factors.build(rows), np.array([0, 1, 2]))
    codes = np.array([[0, 1], [1, 3], [2, 0]])
    out, used = score(plan, codes, sizes)
    np.testing.assert_allclose(out[0], np.log(0.5), rtol=1e-15)
    np.testing.assert_array_equal(out[1], -np.inf)
    np.testing.assert_array_equal(used, 2.0)


def test_aode_shaped_plans_key_on_the_super_parent_and_each_code():
    """Each SPODE's factors key on its super-parent's slot (summed once per row and
    component) and then on one code of multiplier 1 (or none: the head). One SPODE alone
    is read as offset + C times the row's code ("direct"); several whose children lie at
    a few offsets share partial cells, computed once per row (each lookup then reads one
    of them, no multiply); a factor of two terms of its own (a network's) also makes it
    compute partial cells."""
    rng = np.random.default_rng(1)
    d = 12
    sizes = np.full(d, 4)
    plan = random_plan(rng, sizes, 3, components=d)
    keep = [t for t in range(d) if t % 3 == 0]  # the components with one super-parent
    rows = []
    for t in keep:
        for f in range(plan.starts[t], plan.starts[t + 1]):
            terms = zip(
                *(getattr(plan.factors, k)[f] for k in ("cols", "mults", "parent")), strict=True
            )
            rows.append((int(plan.factors.base[f]), [x for x in terms if x[0] >= 0]))
    factors = Factors.build(rows)
    one_parent = Plan(plan.table, factors, np.arange(len(keep) + 1) * d)
    flat = flat_plan(one_parent, sizes)
    scol, direct, partials = flat[5], flat[19], flat[9]
    assert scol.shape[1] == 1 and ((scol >= d) & (scol < 2 * d)).all()  # a parent's slot
    # a child's offset differs only by whether the super-parent comes before it: at most
    # 2 d - 1 partial cells and the head's, for 4 d factors
    assert not direct and partials.size <= 2 * d and factors.base.size == len(keep) * d
    alone = Plan(plan.table, Factors.build(rows[:d]), np.array([0, d]))
    flat = flat_plan(alone, sizes)
    direct, dcol = flat[19], flat[20]
    assert direct and ((dcol < d) | (dcol == 2 * d)).all() and (dcol == 2 * d).sum() == 1
    codes = random_codes(rng, sizes, 400)
    for shaped in (one_parent, alone):
        assert_same_scores(score(shaped, codes, sizes), written_out(shaped, codes, sizes))
    assert not flat_plan(plan, sizes)[19]  # with network-like components: partial cells
    assert_same_scores(score(plan, codes, sizes), written_out(plan, codes, sizes))


def test_results_do_not_depend_on_threads_or_blocks(monkeypatch):
    rng = np.random.default_rng(11)
    sizes = rng.integers(1, 6, 8)
    plan = random_plan(rng, sizes, 3, components=9)
    codes = random_codes(rng, sizes, 20_000)
    with threadpool_limits(limits=1, user_api="blas"):
        one = score(plan, codes, sizes)
    many = score(plan, codes, sizes)
    np.testing.assert_array_equal(one[0], many[0])  # every row on its own: the same bits
    np.testing.assert_array_equal(one[1], many[1])
    np.testing.assert_array_equal(score(plan, codes[:7], sizes)[0], one[0][:, :7])


def test_the_numpy_reference_below_the_threshold_and_when_disabled(monkeypatch):
    rng = np.random.default_rng(2)
    sizes = np.array([3, 3, 3])
    plan = random_plan(rng, sizes, 2, components=3)
    codes = random_codes(rng, sizes, 50)
    calls = []
    monkeypatch.setattr(lookup, "score_reference", lambda *a: calls.append(1) or (0, 0))
    monkeypatch.setattr(lookup, "COMPILED_FROM", 50 * plan.factors.base.size + 1)
    assert not lookup.compiled(50 * plan.factors.base.size) and lookup.compiled()
    score(plan, codes, sizes)
    monkeypatch.setattr(lookup, "COMPILED_FROM", 0)
    score(plan, codes, sizes)
    monkeypatch.setenv(lookup.DISABLE_ENV, "1")
    score(plan, codes, sizes)
    assert calls == [1, 1]


@pytest.mark.parametrize("term", [(0, 1, False), (0, 2, True)])  # direct, partial cells
def test_codes_out_of_range_are_refused(term):
    sizes = np.array([2, 2])
    plan = Plan(np.zeros((5, 2)), Factors.build([(0, [term])]), np.array([0, 1]))
    for bad in ([[4, 0]], [[-1, 0]], [[0, 4]]):
        with pytest.raises(ValueError, match="codes must lie in 0 .. O_j \\+ 1"):
            score(plan, np.array(bad), sizes)
    with pytest.raises(ValueError, match="codes must have shape"):
        score(plan, np.zeros((3, 3), dtype=np.intp), sizes)


@pytest.mark.parametrize(
    "rows,cells,message",
    [
        ([(0, [(0, 1, False)])], 3, "reach cells outside its table"),  # code 3 -> cell 3
        ([(0, [(0, 2, True)])], 4, "reach cells outside its table"),  # slot 2 -> cell 4
        ([(0, [(2, 1, False)])], 9, "columns below 2"),
        ([(-1, [(0, 1, False)])], 9, "bases, multipliers >= 0"),
        ([(0, [(0, 2**62, False)])], 9, "reach cells outside its table"),  # no wrap-around
    ],
)
def test_plans_reaching_outside_their_tables_are_refused(rows, cells, message):
    plan = Plan(np.zeros((cells, 2)), Factors.build(rows), np.array([0, 1]))
    with pytest.raises(ValueError, match=message):
        score(plan, np.zeros((1, 2), dtype=np.intp), np.array([2, 2]))


def test_gates_reaching_outside_their_table_are_refused():
    factors = Factors.build([(0, [(0, 1, False)]), (0, [(1, 1, False)])])
    gates = Factors.build([(0, [(0, 1, True)]), (2, [(1, 1, True)])])
    plan = Plan(np.zeros((4, 1)), factors, np.array([0, 1, 2]), None, gates, np.ones(4))
    with pytest.raises(ValueError, match="gates reach cells outside"):
        score(plan, np.zeros((1, 2), dtype=np.intp), np.array([2, 2]))
    with pytest.raises(ValueError, match="starts do not split"):
        score(Plan(plan.table, factors, np.array([0, 1])), np.zeros((1, 2), int), np.array([2, 2]))


def test_the_exponential_is_within_an_ulp_or_two():
    rng = np.random.default_rng(0)
    x = np.concatenate([-rng.random(100_000) * 720, -rng.random(1000) * 1e-3, [0.0, -707.9]])
    out, bits = np.empty_like(x), np.empty(x.size, dtype=np.int64)
    kernels._exp(x, out, bits, x.size)
    np.testing.assert_allclose(out, np.exp(np.maximum(x, -708.0)), rtol=5e-16, atol=0)
    x = np.array([-np.inf, np.nan, -800.0])  # no usable term: exp(-708), about 3e-308
    kernels._exp(x, out[:3], bits[:3], 3)
    np.testing.assert_allclose(out[:3], np.exp(-708.0), rtol=5e-16)


@pytest.mark.parametrize("unseen", ["smooth", "ignore"])
@pytest.mark.parametrize("kind", ["int", "float", "wide"])
def test_numeric_codes_equal_value_codes(kind, unseen):
    rng = np.random.default_rng(4)
    sizes = [0, 1, 5, 16, 17, 300]  # counted outright up to 16 values, else searched
    pool = np.arange(-40, 400)
    cats = [np.sort(rng.choice(pool, s, replace=False)) for s in sizes]
    X = np.column_stack([rng.choice(pool, 2000) for _ in sizes])
    if kind != "int":
        cats = [c * 0.5 for c in cats]
        X = X * 0.5
        X[rng.random(X.shape) < 0.1] = np.nan
        X[0, 2], X[1, 3] = np.inf, -0.0
    if kind == "wide":  # columns of 64-bit integers and of floats side by side
        cats[0] = np.array([2**40, 2**41], dtype=np.int64)
        X[:, 0] = np.where(rng.random(2000) < 0.5, 2.0**40, 3.0)
    codes, first = lookup.numeric_codes(X, cats, unseen)
    want = np.column_stack([value_codes(c, X[:, j], j, unseen, {}) for j, c in enumerate(cats)])
    np.testing.assert_array_equal(codes, want)
    unseen_at = (want == np.array([c.size for c in cats]) + (unseen != "smooth")) & ~np.isnan(X)
    assert first == np.flatnonzero(unseen_at.ravel())[0]


def test_numeric_codes_leave_other_tables_to_value_codes(monkeypatch):
    cats = [np.array([1.0, 2.0])]
    assert lookup.numeric_codes(np.array([["a"]], dtype=object), cats, "smooth") is None
    assert lookup.numeric_codes(np.ones((3, 1)), [np.array(["a"], dtype=object)], "x") is None
    assert lookup.numeric_codes(np.array([[2**60]]), [np.array([2**60])], "smooth") is None
    monkeypatch.setenv(lookup.DISABLE_ENV, "1")
    assert lookup.numeric_codes(np.ones((3, 1)), cats, "smooth") is None


def test_codes_by_value_for_few_integers():
    """Columns of a few integers (bins, small codes) are looked up by value: a value
    between them, beyond them, huge, infinite or missing is not a code of theirs."""
    cats = [np.array([-3, 0, 2, 7]), np.array([1.0, 2.0]), np.array([], dtype=float)]
    X = np.array(
        [
            [-3.0, 1.0, 5.0],
            [2.0, 2.0, np.nan],
            [7.0, 1.5, 0.0],
            [1.0, np.inf, 1.0],
            [2.0**60, -np.inf, 2.0],
            [np.nan, 0.0, 3.0],
            [-0.0, 2.0, 4.0],
        ]
    )
    assert lookup._by_value([c.astype(float) for c in cats]) is not None
    for unseen in ("smooth", "ignore"):
        codes, first = lookup.numeric_codes(X, cats, unseen)
        want = np.column_stack([value_codes(c, X[:, j], j, unseen, {}) for j, c in enumerate(cats)])
        np.testing.assert_array_equal(codes, want)
        assert first == 2  # the row 0, column 2 value 5 was never seen
    ints = np.array([[3, 2**62], [0, 1]])
    codes, _ = lookup.numeric_codes(ints, [np.array([0, 3]), np.array([1, 2])], "smooth")
    np.testing.assert_array_equal(codes, [[1, 2], [0, 0]])


def test_aode_lays_each_child_at_one_offset_in_every_spode():
    """AODE's plan leaves each SPODE's super-parent a hole where it would be a child, so
    child j lies at the same offset in every SPODE: a row computes d partial cells and the
    head's, shared by all d (d - 1) lookups, and scores as the NumPy reference does."""
    import bayesrule

    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, (3000, 7))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, 3000)) % 3
    model = bayesrule.AODE().fit(X, y)
    likelihood = model.likelihood_
    plan, sizes = likelihood._plan()[0], likelihood._sizes
    flat = flat_plan(plan, sizes)
    assert not flat[19] and flat[9].size == 7 + 1
    codes = likelihood._codes(X)
    assert_same_scores(score(plan, codes, sizes), score_reference(plan, codes, sizes))


def test_a_super_parent_of_many_values_keeps_the_packed_layout():
    """An attribute of 2,000 values would leave 2,001 x 2,002 unused cells per class in
    its SPODE under the aligned layout: the children then follow one another (the table
    no larger than the packed one), and the scores are the reference's."""
    import bayesrule

    rng = np.random.default_rng(5)
    n = 6000
    X = np.column_stack([rng.integers(0, 2000, n), rng.integers(0, 3, (n, 3))])
    y = (X[:, 1] + rng.integers(0, 2, n)) % 2
    likelihood = bayesrule.AODE().fit(X, y).likelihood_
    plan, sizes = likelihood._plan()[0], likelihood._sizes
    slots = sizes + 1
    packed = int((slots * (1 + (sizes + 2).sum() - (sizes + 2))).sum())
    assert plan.table.shape[0] == packed
    codes = likelihood._codes(X[:500])
    assert_same_scores(score(plan, codes, sizes), score_reference(plan, codes, sizes))
