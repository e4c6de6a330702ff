"""Functions made from a declared parameter table.

scikit-learn reads an estimator's parameters from the signature of its ``__init__``,
and that ``__init__`` only stores them. Written out by hand, that is the same list three
times per class (signature, assignments, docstring) and the same block again in every
class that shares parameters. Here a class declares its parameters once, as a mapping
from name to default, and :func:`storing_init` makes the ``__init__``: its signature
(which ``inspect.signature``, ``get_params`` and ``help`` read) lists them, and it
stores each argument under its own name, nothing else. (Static tools that do not run
the code, such as type checkers, do not see these signatures.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from inspect import Parameter, Signature

__all__ = ["declared_function", "parameters", "storing_init"]


def parameters(defaults: Mapping, *, positional: tuple[str, ...] = ()) -> list[Parameter]:
    """Parameters from ``name -> default``: those named in ``positional`` may also be
    passed by position (they come first), the rest are keyword-only."""
    first = [Parameter(n, Parameter.POSITIONAL_OR_KEYWORD, default=defaults[n]) for n in positional]
    rest = [
        Parameter(n, Parameter.KEYWORD_ONLY, default=v)
        for n, v in defaults.items()
        if n not in positional
    ]
    return first + rest


def declared_function(
    name: str, leading: list[Parameter], body: Callable, doc: str | None = None
) -> Callable:
    """A function with the signature ``leading``; it binds its arguments to it (the
    usual ``TypeError`` for a wrong or missing one, naming the function) and calls
    ``body`` with every argument in signature order, defaults filled in."""
    signature = Signature(leading)

    def function(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{name}(): {error}") from None
        bound.apply_defaults()
        return body(*bound.arguments.values())

    function.__signature__ = signature
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def storing_init(owner: str, defaults: Mapping, *, positional: tuple[str, ...] = ()):
    """An ``__init__(self, ...)`` taking the parameters of ``defaults`` and storing each
    as an attribute of the same name (the scikit-learn convention)."""
    declared = parameters(defaults, positional=positional)
    names = [p.name for p in declared]

    def store(self, *values):
        for name, value in zip(names, values, strict=True):
            setattr(self, name, value)

    init = declared_function(
        f"{owner}.__init__",
        [Parameter("self", Parameter.POSITIONAL_OR_KEYWORD), *declared],
        store,
    )
    init.__name__ = "__init__"
    init.declared = True  # made here, not written: a subclass may make its own again
    return init
