"""What files written by earlier versions lack: the names classes had before the layout
of the second wave (:mod:`bayesrule.io.codec` registers them as aliases), and the
parameters added since, with the values that reproduce what those files computed."""

import inspect

#: parameters added after files were written: a stored object whose class takes one but
#: whose file lacks it gets the value that keeps its old behaviour (not the new default)
ADDED_PARAMETERS = {
    # kernel densities: exact kernel sums (the binned evaluation came with "auto")
    "algorithm": "exact",
    # categorical naive Bayes: each value its own category (continuous columns were
    # binned only when asked)
    "discretize": None,
    "n_bins": 5,
    # semi-naive tables given attribute parents: no back-off to the table given the class
    "backoff": 0.0,
    # semi-naive tables: the Lidstone estimates (hierarchical Dirichlet smoothing came later)
    "smoothing": "lidstone",
    # Calibrated: the Dirichlet map's penalty (read by method="dirichlet" only, which
    # came with it)
    "reg_lambda": 1e-3,
    # ConformalSet: classes scored by their posteriors (the joint and the likelihood came
    # later; SelectiveClassifier's score_by has the same default)
    "score_by": "posterior",
    # LinearDiscriminant: transform's coordinates (every one; mixtures always stored
    # their own n_components)
    "n_components": None,
    # QuadraticDiscriminant and Gaussian: RDA's pooling (shrinkage of the full structure
    # came with it; LDA's shrinkage has the same default)
    "pooling": 0.0,
    "shrinkage": None,
    # the Gaussian family and its presets: Bayesian estimates came later
    "estimate": "ml",
    "prior": None,
    # the Gaussian family and LinearDiscriminant, QuadraticDiscriminant: the covariance
    # from a scikit-learn estimator came later
    "covariance_estimator": None,
    # mixtures: k-means starts (mclust's agglomerative start came later)
    "init": "kmeans",
    # TAN: the tree of I(X_i; X_j | C) (bnclassify's AIC/BIC forests and the BAYES score
    # came later), grown from its root and directed away from it (Weka's search came
    # later); KDB: the k parents of highest information, no threshold
    "edge_score": "cmi",
    "direction": "root",
    "min_cmi": None,
    # AODE and its family: no subsumption resolution (AODEsr came later)
    "subsumption": False,
}


def parameters_of(cls: type):
    """The names ``cls.__init__`` takes (none where it has no signature)."""
    try:
        return inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return {}


def added_parameters(cls: type) -> dict:
    """The parameters of :data:`ADDED_PARAMETERS` that ``cls`` takes, with their values."""
    taken = parameters_of(cls)
    return {k: v for k, v in ADDED_PARAMETERS.items() if k in taken}


#: names of the same classes in files written before the layout of the second wave
#: (modules moved; the classes are the ones above, found by their new paths)
_LEGACY = {
    "bayesrule.classifier.BayesClassifier": "bayesrule.estimators.classifier.BayesClassifier",
    "bayesrule.estimators.GaussianNB": "bayesrule.estimators.gaussian.GaussianNB",
    "bayesrule.estimators.QuadraticDiscriminant": (
        "bayesrule.estimators.gaussian.QuadraticDiscriminant"
    ),
    "bayesrule.estimators.LinearDiscriminant": "bayesrule.estimators.gaussian.LinearDiscriminant",
    "bayesrule.estimators.NearestMean": "bayesrule.estimators.gaussian.NearestMean",
    "bayesrule.naive_bayes.BernoulliNB": "bayesrule.estimators.naive_bayes.BernoulliNB",
    "bayesrule.naive_bayes.MultinomialNB": "bayesrule.estimators.naive_bayes.MultinomialNB",
    "bayesrule.naive_bayes.ComplementNB": "bayesrule.estimators.naive_bayes.ComplementNB",
    "bayesrule.naive_bayes.CategoricalNB": "bayesrule.estimators.naive_bayes.CategoricalNB",
    "bayesrule.naive_bayes.KernelNB": "bayesrule.estimators.naive_bayes.KernelNB",
    "bayesrule.mixed.MixedNB": "bayesrule.estimators.mixed.MixedNB",
    "bayesrule.mixture_bayes.GaussianMixtureBayes": (
        "bayesrule.estimators.mixture.GaussianMixtureBayes"
    ),
    "bayesrule.seminaive.SPODE": "bayesrule.estimators.one_dependence.SPODE",
    "bayesrule.seminaive.AODE": "bayesrule.estimators.one_dependence.AODE",
    "bayesrule.network_bayes.TAN": "bayesrule.estimators.network.TAN",
    "bayesrule.network_bayes.KDB": "bayesrule.estimators.network.KDB",
    "bayesrule.likelihoods.counts.CountStats": "bayesrule.stats.counts.CountStats",
    "bayesrule.likelihoods.one_dependence.OneDependence": (
        "bayesrule.likelihoods.discrete.one_dependence.OneDependence"
    ),
    "bayesrule.likelihoods.network.TreeAugmented": (
        "bayesrule.likelihoods.discrete.learned.TreeAugmented"
    ),
    "bayesrule.likelihoods.network.KDependence": (
        "bayesrule.likelihoods.discrete.learned.KDependence"
    ),
    "bayesrule.likelihoods.pair_counts.PairCounts": "bayesrule.stats.pair_counts.PairCounts",
    "bayesrule.likelihoods.mixture_model.MixtureModel": (
        "bayesrule.likelihoods.mixture.model.MixtureModel"
    ),
    "bayesrule.stats.ClassMoments": "bayesrule.stats.moments.ClassMoments",
}
