"""Every public name has a page in the API reference (``docs/api/index.rst``'s autosummary
lists, one generated page per entry), and every entry names something that exists.

Public: ``bayesrule.__all__`` and the ``__all__`` of each top-level module of the package
(``bayesrule.decision``, ``bayesrule.plot`` ...), but for the command (``bayesrule.cli``)
and ``bayesrule.estimators`` (whose classes are ``bayesrule``'s). A name documented
under ``bayesrule`` counts for the module that also exports it (the same object)."""

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import bayesrule

INDEX = Path(__file__).resolve().parents[2] / "docs" / "api" / "index.rst"
NOT_API = {"cli", "estimators"}


def documented() -> dict[str, set[str]]:
    """Per ``currentmodule``, the names its autosummary lists hold."""
    pages: dict[str, set[str]] = {}
    module = None
    listing = False
    for line in INDEX.read_text().splitlines():
        if found := re.match(r"\.\. currentmodule:: (\S+)", line):
            module = found.group(1)
        elif line.startswith(".. autosummary::"):
            listing = True
        elif listing and re.match(r"   [A-Za-z_]\w*$", line):
            pages.setdefault(module, set()).add(line.strip())
        elif line and not line.startswith(" "):
            listing = False
    return pages


def public_modules() -> list[str]:
    names = []
    for info in pkgutil.iter_modules(bayesrule.__path__):
        if info.name.startswith("_") or info.name in NOT_API:
            continue
        module = importlib.import_module(f"bayesrule.{info.name}")
        if hasattr(module, "__all__"):
            names.append(module.__name__)
    return sorted(names)


def test_the_reader_finds_the_lists():
    pages = documented()
    assert "AODE" in pages["bayesrule"] and "decision_regions" in pages["bayesrule.plot"]


def test_every_name_of_bayesrule_has_a_page():
    missing = set(bayesrule.__all__) - {"__version__"} - documented()["bayesrule"]
    assert not missing, f"add these to docs/api/index.rst: {sorted(missing)}"


@pytest.mark.parametrize("name", public_modules())
def test_every_name_of_each_public_module_has_a_page(name):
    module = importlib.import_module(name)
    pages = documented()
    assert name in pages, f"docs/api/index.rst has no section for {name}"
    at_top = {id(getattr(bayesrule, n)) for n in pages["bayesrule"]}
    missing = [
        n for n in module.__all__ if n not in pages[name] and id(getattr(module, n)) not in at_top
    ]
    assert not missing, f"add these to {name}'s list in docs/api/index.rst: {missing}"


def test_every_page_names_something_that_exists():
    for module_name, names in documented().items():
        module = importlib.import_module(module_name)
        for name in names:
            assert hasattr(module, name), f"docs/api/index.rst lists {module_name}.{name}"
