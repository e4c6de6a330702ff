"""The architecture as a contract: layers without cycles (import-linter's contracts in
pyproject.toml, also run by ``make lint``), small modules, shallow class hierarchies and
one list of estimators."""

import ast
import pathlib

import pytest
from importlinter.cli import lint_imports

import bayesrule
from bayesrule import BayesClassifier
from bayesrule.cli.models import MODELS
from bayesrule.estimators import ESTIMATORS
from bayesrule.io.codec import _registry

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "bayesrule"
NAMES = {entry.cls.__name__ for entry in ESTIMATORS}


def test_the_import_contracts_are_kept(capsys):
    kept = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    assert kept == 0, capsys.readouterr().out


def test_no_module_is_over_400_lines():
    sizes = {p.relative_to(SRC): len(p.read_text().splitlines()) for p in SRC.rglob("*.py")}
    assert len(sizes) > 80
    assert {p: n for p, n in sizes.items() if n > 400} == {}


@pytest.mark.parametrize("entry", ESTIMATORS, ids=lambda e: e.cls.__name__)
def test_no_estimator_is_more_than_two_levels_below_bayes_classifier(entry):
    chain = [c for c in entry.cls.__mro__ if issubclass(c, BayesClassifier)]
    assert chain[-1] is BayesClassifier
    assert len(chain) - 1 <= 2, [c.__name__ for c in chain]


def test_everything_that_lists_estimators_reads_the_registry():
    classes = [entry.cls for entry in ESTIMATORS]
    assert len(set(classes)) == len(classes) == len(NAMES)
    assert NAMES <= set(bayesrule.__all__)
    assert all(getattr(bayesrule, name) in classes for name in NAMES)
    by_name, by_class = _registry()
    for cls in classes:  # model files name each class by its module path
        assert by_name[by_class[cls]] is cls
        assert by_class[cls] == f"{cls.__module__}.{cls.__qualname__}"
    cli = {e.cli_name: e.cls for e in ESTIMATORS if e.cli_name}
    assert {name: model.cls for name, model in MODELS.items()} == cli


def _listed_names(node) -> set:
    """Estimator names written in a list, tuple, set or dict literal (also as call
    arguments inside it, e.g. ``Entry(GaussianNB, ...)``)."""
    found = set()
    for item in ast.walk(node):
        if isinstance(item, ast.Name) and item.id in NAMES:
            found.add(item.id)
        elif isinstance(item, ast.Constant) and item.value in NAMES:
            found.add(item.value)
    return found


def test_no_estimator_name_is_written_in_more_than_one_list():
    lists = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
                if len(_listed_names(node)) >= 3:
                    lists.append((path.relative_to(SRC).as_posix(), node.lineno))
    # compared as files: the registry's nested literals (its entries) are one place
    assert {path for path, _ in lists} == {"estimators/__init__.py"}, lists
