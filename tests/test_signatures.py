"""Functions made from declared parameter tables: the estimators' ``__init__``, the
Gaussian presets' ``from_parameters``, fitted attributes read from the likelihood, and
the figures' area parameters."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from bayesrule import (
    AODE,
    SPODE,
    TAN,
    CategoricalNB,
    GaussianBayes,
    GaussianMixtureBayes,
    GaussianNB,
    LinearDiscriminant,
    MixedNB,
    NearestMean,
    QuadraticDiscriminant,
)
from bayesrule._signatures import storing_init
from bayesrule.likelihoods.mixture import MIXTURE, Mixture
from bayesrule.plot import decision_regions, decision_regions_under, posterior_map
from bayesrule.plot.mixture import mixture_components

DECISION = ["priors", "loss", "reject_label"]


class _Thing:
    __init__ = storing_init("_Thing", {"a": 1, "b": None, "c": "x"}, positional=("a",))


def test_storing_init_stores_each_argument_under_its_name_with_the_defaults():
    thing = _Thing(5, c="y")
    assert vars(thing) == {"a": 5, "b": None, "c": "y"}
    assert vars(_Thing()) == {"a": 1, "b": None, "c": "x"}


def test_storing_init_signature_lists_the_table_positional_first_then_keyword_only():
    params = inspect.signature(_Thing.__init__).parameters
    assert list(params) == ["self", "a", "b", "c"]
    assert params["a"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert params["b"].kind is params["c"].kind is inspect.Parameter.KEYWORD_ONLY
    assert [params[n].default for n in "abc"] == [1, None, "x"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: _Thing(d=1), r"_Thing.__init__\(\): got an unexpected keyword argument 'd'"),
        (lambda: _Thing(1, 2), r"_Thing.__init__\(\): too many positional arguments"),
        (lambda: _Thing(1, a=2), r"_Thing.__init__\(\): multiple values for argument 'a'"),
    ],
)
def test_storing_init_refuses_what_a_written_init_would(call, message):
    with pytest.raises(TypeError, match=message):
        call()


@pytest.mark.parametrize(
    ("cls", "own"),
    [
        (GaussianNB, {"var_smoothing": 1e-9, "estimate": "ml", "prior": None}),
        (
            LinearDiscriminant,
            {
                "reg_covar": "auto",
                "shrinkage": None,
                "covariance_estimator": None,
                "n_components": None,
                "estimate": "ml",
                "prior": None,
            },
        ),
        (NearestMean, {}),
        (
            GaussianBayes,
            {"covariance": "bic", "reg_covar": "auto", "estimate": "ml", "prior": None},
        ),
        (CategoricalNB, {"alpha": 1.0, "unseen": "smooth", "discretize": "auto", "n_bins": 5}),
        (
            TAN,
            {
                "root": None,
                "edge_score": "cmi",
                "direction": "root",
                "alpha": 1.0,
                "unseen": "smooth",
                "discretize": "auto",
                "n_bins": 5,
                "backoff": 5.0,
                "smoothing": "lidstone",
            },
        ),
        (
            AODE,
            {
                "min_count": 1,
                "subsumption": False,
                "alpha": 1.0,
                "unseen": "smooth",
                "discretize": "auto",
                "n_bins": 5,
                "backoff": 0.0,
                "smoothing": "lidstone",
            },
        ),
        (MixedNB, {"features": "auto"}),
        (GaussianMixtureBayes, MIXTURE),
    ],
)
def test_estimator_parameters_are_their_table_and_the_decision_parameters(cls, own):
    expected = {**own, **dict.fromkeys(DECISION)}
    assert cls().get_params() == expected
    params = inspect.signature(cls).parameters
    assert list(params) == [*own, *DECISION]
    assert all(
        p.kind is inspect.Parameter.KEYWORD_ONLY for n, p in params.items() if n != "n_components"
    )


def test_gaussian_mixture_bayes_keeps_n_components_positional_and_the_likelihood_all():
    assert GaussianMixtureBayes(3).n_components == 3
    assert Mixture(2, "diag").get_params()["covariance"] == "diag"
    assert list(inspect.signature(Mixture).parameters) == list(MIXTURE)


def test_a_set_parameter_survives_clone_and_reaches_the_family():
    est = clone(SPODE(parent=1, alpha=0.5, loss=[[0, 1], [2, 0]]))
    assert est.get_params()["parent"] == 1 and est.alpha == 0.5
    like = est._make_likelihood()
    assert like.parents == 1 and like.min_count == 0 and like.alpha == 0.5


def test_a_subclass_that_writes_its_own_init_keeps_it():
    class Mine(GaussianNB):
        def __init__(self, *, var_smoothing=1e-3, priors=None, loss=None, reject_label=None):
            super().__init__(var_smoothing=var_smoothing, priors=priors, loss=loss)
            self.reject_label = reject_label

    assert Mine().var_smoothing == 1e-3
    assert "var_smoothing" in Mine().get_params()


@pytest.mark.parametrize(
    ("cls", "name", "value"),
    [
        (QuadraticDiscriminant, "covariances", [np.eye(2), 2 * np.eye(2)]),
        (LinearDiscriminant, "covariance", np.eye(2)),
        (GaussianNB, "variances", [[1.0, 1.0], [2.0, 2.0]]),
        (NearestMean, "variance", 1.0),
    ],
)
def test_from_parameters_names_its_covariance_argument_and_takes_it_by_name(cls, name, value):
    params = list(inspect.signature(cls.from_parameters).parameters)
    assert params == ["means", name, "priors", "classes", "loss", "reject_label"]
    by_name = cls.from_parameters(means=[[0, 0], [3, 3]], **{name: value}, classes=["a", "b"])
    by_position = cls.from_parameters([[0, 0], [3, 3]], value, None, ["a", "b"])
    x = [[1.0, 1.2], [2.5, 2.0]]
    np.testing.assert_array_equal(by_name.predict_proba(x), by_position.predict_proba(x))
    assert by_name.predict([[0.1, 0.0]])[0] == "a"
    assert f"{name} : array-like" in cls.from_parameters.__doc__
    with pytest.raises(TypeError, match=rf"{cls.__name__}.from_parameters\(\): missing"):
        cls.from_parameters([[0, 0]])


def test_fitted_attribute_reads_the_likelihood_and_is_not_set():
    clf = CategoricalNB()
    with pytest.raises(NotFittedError):
        clf.categories_  # noqa: B018
    assert not hasattr(clf, "category_count_")
    clf.fit([["a"], ["b"], ["a"]], [0, 1, 0])
    assert [c.tolist() for c in clf.categories_] == [["a", "b"]]
    np.testing.assert_array_equal(clf.category_count_[0], [[2, 0], [0, 1]])
    with pytest.raises(AttributeError, match="categories_ is fitted"):
        clf.categories_ = []
    assert "seen in training" in CategoricalNB.categories_.__doc__


@pytest.mark.parametrize(
    ("function", "expected"),
    [
        (decision_regions, {"ax": None, "resolution": 300, "padding": 0.1, "xlim": None}),
        (decision_regions_under, {"ax": None, "resolution": 300, "padding": 0.1, "ylim": None}),
        (posterior_map, {"ax": None, "resolution": 200, "padding": 0.1, "xlim": None}),
        (mixture_components, {"ax": None, "padding": 0.05, "xlim": None, "ylim": None}),
    ],
)
def test_figures_show_their_area_parameters_in_their_signature(function, expected):
    params = inspect.signature(function).parameters
    assert "area" not in params
    for name, default in expected.items():
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert params[name].default == default
    assert function.__module__.startswith("bayesrule.plot.")
    with pytest.raises(TypeError, match=rf"{function.__name__}\(\): got an unexpected keyword"):
        function(None, 0, areaa=1)


def test_a_written_init_is_kept_by_the_subclasses_below_it():
    class Written(GaussianNB):
        def __init__(
            self, extra=1, *, var_smoothing=1e-9, priors=None, loss=None, reject_label=None
        ):
            self.extra = extra
            super().__init__(
                var_smoothing=var_smoothing, priors=priors, loss=loss, reject_label=reject_label
            )

    class Below(Written):
        pass

    assert Below(extra=5).get_params()["extra"] == 5
    assert list(inspect.signature(Below).parameters)[0] == "extra"


def test_a_likelihood_given_a_column_name_says_names_work_through_the_estimator():
    import pandas as pd

    from bayesrule import BayesClassifier
    from bayesrule.likelihoods.discrete.learned import TreeAugmented

    frame = pd.DataFrame({"a": [0, 1, 0, 1], "b": [1, 1, 0, 0], "c": [0, 0, 1, 1]})
    with pytest.raises(
        TypeError, match=r"root must be a column position \(an int\) here.*TAN\(root"
    ):
        BayesClassifier(TreeAugmented(root="b")).fit(frame, [0, 0, 1, 1])
    assert TAN(root="b").fit(frame, [0, 0, 1, 1]).root_ == 1
