"""Sphinx configuration of bayesrule's documentation (``make docs``: offline, ``-W``)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")

import bayesrule  # noqa: E402

project = "bayesrule"
author = "the bayesrule developers"
copyright = "2026, the bayesrule developers"  # noqa: A001
release = bayesrule.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
    "runcode",
    "sphinx-mathjax-offline",  # MathJax served with the pages: formulas render offline
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "internals.md", "screenshots"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["bayesrule.css"]
html_theme = "pydata_sphinx_theme"
html_title = f"bayesrule {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "install": [], "getting_started": [], "changelog": []}
html_show_sourcelink = False
# offline: no intersphinx, no remote images, MathJax copied into the site

autosummary_generate = True
autosummary_imported_members = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"seed_figures\.py|seminaive_compare\.py",  # scripts of their own
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "within_subsection_order": "FileNameSortKey",
    "min_reported_time": 5,
    "capture_repr": (),  # a cell's last value (an Axes label's Text ...) is not output
}


def _constant_docs(app, what, name, obj, options, lines):
    """A module constant (an array, a tuple) documented by its ``#:`` comment where it is
    defined (a private submodule), not by its type's docstring."""
    if what != "data" or not name.startswith("bayesrule."):
        return
    import importlib
    import pkgutil

    from sphinx.pycode import ModuleAnalyzer

    package_name, attr = name.rsplit(".", 1)
    package = importlib.import_module(package_name)
    places = [package_name] + [
        f"{package_name}.{info.name}"
        for info in pkgutil.iter_modules(getattr(package, "__path__", []))
    ]
    for place in places:
        try:
            docs = ModuleAnalyzer.for_module(place).find_attr_docs()
        except Exception:  # noqa: BLE001 - a module without source
            continue
        if ("", attr) in docs:
            lines[:] = list(docs[("", attr)])
            return


def _sklearn_methods(app, what, name, obj, options, lines):
    """A method inherited from scikit-learn (``get_params``, ``score`` ...): its summary and
    a pointer, not its docstring (whose references lead into scikit-learn's own site)."""
    if what != "method" or not getattr(obj, "__module__", "").startswith("sklearn"):
        return
    first = []
    for line in lines:
        if not line.strip():
            break
        first.append(line)
    lines[:] = [
        *first,
        "",
        f"Inherited from scikit-learn (``{obj.__module__}``); see its documentation.",
    ]


def _skip_routing(app, what, name, obj, skip, options):
    """scikit-learn's metadata-routing methods (``set_fit_request`` ...) stay off the pages."""
    if re.fullmatch(r"set_\w+_request|get_metadata_routing", name):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_routing)
    app.connect("autodoc-process-docstring", _constant_docs)
    app.connect("autodoc-process-docstring", _sklearn_methods)
