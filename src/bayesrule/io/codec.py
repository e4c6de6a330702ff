"""Encoding of estimator objects as JSON plus arrays, and the registry of allowed classes.

Used by :mod:`bayesrule.io`, whose docstring describes the file format. Decoding looks
classes up in the registry only: no module named in a file is ever imported."""

from __future__ import annotations

import importlib
import inspect
import math

import numpy as np

from ..estimators import ESTIMATORS
from ..likelihoods.estimated_covariance import SKLEARN_ESTIMATORS
from .legacy import _LEGACY, added_parameters, parameters_of

_ARRAY_KINDS = "biufcUSmM"  # dtypes an array entry may have (no object, no structured)
_LABEL_TYPES = (str, int, float, bool)

#: classes a file may name besides the estimators (:data:`bayesrule.estimators.ESTIMATORS`):
#: the objects they hold, as ``"module.Class"`` imported on first use (or :func:`register`)
_BUILTIN = [
    "bayesrule.likelihoods.gaussian.Gaussian",
    "bayesrule.likelihoods.bernoulli.Bernoulli",
    "bayesrule.likelihoods.multinomial.Multinomial",
    "bayesrule.likelihoods.multinomial.Complement",
    "bayesrule.likelihoods.poisson.Poisson",
    "bayesrule.stats.counts.CountStats",
    "bayesrule.likelihoods.categorical.Categorical",
    "bayesrule.likelihoods.categorical.CategoryCounts",
    "bayesrule.likelihoods.kernel.Kernel",
    "bayesrule.likelihoods.kernel.KernelData",
    "bayesrule.likelihoods.product.Product",
    "bayesrule.stats.pair_counts.PairCounts",
    "bayesrule.stats.set_counts.SetCounts",
    "bayesrule.likelihoods.product.ProductStats",
    "bayesrule.likelihoods.mixture.Mixture",
    "bayesrule.likelihoods.mixture.model.MixtureModel",
    "bayesrule.likelihoods.covariance.Structure",
    "bayesrule.likelihoods.conjugate.NormalInverseWishart",
    "bayesrule.likelihoods.conjugate.NormalGamma",
    "bayesrule.decision.LossMatrix",
    "bayesrule.decision.NeymanPearson",
    "bayesrule.decision.Minimax",
    "bayesrule.decision.BayesDecision",
    "bayesrule.decision.ConformalSet",
    "bayesrule.decision.Calibrated",
    "bayesrule.decision.SelectiveClassifier",
    "bayesrule.decision.OutlierReject",
    "bayesrule.stats.moments.ClassMoments",
    "bayesrule.priors.Dirichlet",
    *(f"sklearn.covariance.{name}" for name in SKLEARN_ESTIMATORS),  # covariance_estimator=
]
_by_name: dict[str, type] = {}
_by_class: dict[type, str] = {}
_builtin_loaded = False


def register(cls: type, *, name: str | None = None) -> type:
    """Allow instances of ``cls`` in saved files (usable as a class decorator).

    Parameters
    ----------
    cls : type
        A class whose instances are restored by ``cls.__new__(cls)`` and an update of
        their ``__dict__`` with the saved attributes.
    name : str, optional
        The name written to files; default ``"module.QualName"``. Registering a second
        name for a class keeps files that use the old name loadable (after a move).

    Returns
    -------
    cls

    Examples
    --------
    >>> import os, tempfile
    >>> from bayesrule import GaussianNB
    >>> from bayesrule.io import load, register, save
    >>> @register
    ... class MyNB(GaussianNB):  # a user's subclass, now allowed in files
    ...     pass
    >>> model = MyNB().fit([[0.0], [1.0], [5.0], [6.0]], ["low", "low", "high", "high"])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save(model, os.path.join(tmp, "my.model"))
    ...     print(type(load(os.path.join(tmp, "my.model"))).__name__)
    MyNB
    """
    if not isinstance(cls, type):
        raise TypeError(f"register takes a class, got {cls!r}")
    key = name or f"{cls.__module__}.{cls.__qualname__}"
    other = _by_name.get(key)
    if other is not None and other is not cls:
        raise ValueError(f"the name {key!r} is already registered for {other!r}")
    _by_name[key] = cls
    _by_class.setdefault(cls, key)
    return cls


def _registry() -> tuple[dict[str, type], dict[type, str]]:
    global _builtin_loaded
    if not _builtin_loaded:
        for entry in ESTIMATORS:  # each estimator and the family a preset builds
            register(entry.cls)
            if isinstance(getattr(entry.cls, "_family", None), type):
                register(entry.cls._family)
        for path in _BUILTIN:  # fixed names, never names read from a file
            module, _, attr = path.rpartition(".")
            register(getattr(importlib.import_module(module), attr), name=path)
        for old, path in _LEGACY.items():
            register(_by_name[path], name=old)
        _builtin_loaded = True
    return _by_name, _by_class


# --------------------------------------------------------------------------- encoding
class _Encoder:
    """Turns an object graph into JSON-ready values plus a dict of array entries."""

    def __init__(self, by_class: dict[type, str]):
        self.by_class = by_class
        self.arrays: dict[str, np.ndarray] = {}
        self._array_names: dict[int, str] = {}
        self._ids: dict[int, int] = {}
        self._alive: list = []  # keeps memoised objects alive, so their ids stay unique

    def _add_array(self, a: np.ndarray) -> str:
        name = f"a{len(self.arrays)}"
        self.arrays[name] = a
        return name

    def _scalar(self, v: np.generic, where: str):
        kind, dtype = v.dtype.kind, v.dtype.str
        if kind == "b":
            return {"__numpy__": dtype, "value": bool(v)}
        if kind in "iu":
            return {"__numpy__": dtype, "value": int(v)}
        if kind == "f" and v.dtype.itemsize <= 8:
            return {"__numpy__": dtype, "value": _float(float(v))}
        if kind == "U":
            return {"__numpy__": dtype, "value": str(v)}
        if kind in _ARRAY_KINDS:
            return {"__numpy__": dtype, "array": self._add_array(np.asarray(v))}
        raise TypeError(f"{where} is a NumPy scalar of dtype {v.dtype}, which cannot be saved")

    def _memo(self, obj) -> int | None:
        return self._ids.get(id(obj))

    def _remember(self, obj) -> int:
        k = self._ids[id(obj)] = len(self._ids)
        self._alive.append(obj)
        return k

    def encode(self, v, where: str):
        t = type(v)
        if v is None or t in (bool, int, str):
            return v
        if t is float:
            return _float(v)
        if isinstance(v, np.generic):
            return self._scalar(v, where)
        if t is np.ndarray:
            if v.dtype.kind == "O":
                return self._objects(v, where)
            if v.dtype.kind not in _ARRAY_KINDS or v.dtype.hasobject:
                raise TypeError(f"{where} is an array of dtype {v.dtype}, which cannot be saved")
            name = self._array_names.get(id(v))
            if name is None:
                name = self._array_names[id(v)] = self._add_array(v)
                self._alive.append(v)
            return {"__array__": name}
        if t is list:
            return [self.encode(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if t is tuple:
            return {"__tuple__": [self.encode(x, f"{where}[{i}]") for i, x in enumerate(v)]}
        if t is dict:
            return {
                "__dict__": [
                    [self.encode(k, f"{where} key {k!r}"), self.encode(x, f"{where}[{k!r}]")]
                    for k, x in v.items()
                ]
            }
        name = self.by_class.get(t)
        if name is None:
            raise TypeError(
                f"cannot save {where}: {t.__module__}.{t.__qualname__} is not a type bayesrule "
                "files may hold (JSON values, NumPy arrays and scalars, lists, tuples, dicts, "
                "and classes registered with bayesrule.io.register)."
            )
        known = self._memo(v)
        if known is not None:
            return {"__ref__": known}
        k = self._remember(v)
        state = {a: self.encode(x, f"{where}.{a}") for a, x in vars(v).items()}
        return {"__class__": name, "id": k, "state": state}

    def _objects(self, a: np.ndarray, where: str):
        known = self._memo(a)
        if known is not None:
            return {"__ref__": known}
        items = []
        for i, x in enumerate(a.ravel(order="C")):
            ok = type(x) in _LABEL_TYPES or (
                isinstance(x, np.generic)
                and x.dtype.kind in "biufU"
                and (x.dtype.kind != "f" or x.dtype.itemsize <= 8)
            )
            if not ok:
                raise TypeError(
                    f"cannot save {where}[{i}]: object arrays (labels) may hold only str, "
                    f"int, float or bool values, got {type(x).__module__}.{type(x).__qualname__}"
                )
            items.append(self.encode(x, f"{where}[{i}]"))
        return {"__objects__": items, "shape": list(a.shape), "id": self._remember(a)}


def _float(x: float):
    if math.isfinite(x):
        return x
    return {"__float__": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


# --------------------------------------------------------------------------- decoding
def _member(cls: type, name: str) -> str:
    """What an instance attribute ``name`` read from a file does to ``cls``: "keep" it
    (no class member of that name, a dataclass field, a parameter's class default),
    "drop" it (a property, which computes it now: files of older versions stored it)
    or "refuse" it (it would hide a method, a descriptor or a class constant)."""
    if not hasattr(cls, name) or name in getattr(cls, "__dataclass_fields__", {}):
        return "keep"
    member = inspect.getattr_static(cls, name)
    if hasattr(type(member), "__set__"):
        return "drop"
    if name in parameters_of(cls) and not callable(member) and not hasattr(member, "__get__"):
        return "keep"
    return "refuse"


class _Invalid(Exception):
    """Why a file is not a valid bayesrule model file."""


_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def json_nodes(tree) -> int:
    """How many values a parsed JSON tree holds (its containers and their items)."""
    count, stack = 0, [tree]
    while stack:
        node = stack.pop()
        count += 1
        if type(node) is list:
            stack.extend(node)
        elif type(node) is dict:
            stack.extend(node.values())
    return count


class _Decoder:
    """Builds objects from JSON; ``budget`` bounds the values of the result counted with
    every shared reference expanded (a file of references to references would otherwise
    make a structure whose ``repr`` or copy takes exponential time)."""

    def __init__(self, by_name: dict[str, type], arrays: dict[str, np.ndarray], budget=10**6):
        self.by_name = by_name
        self.arrays = arrays
        self.objects: dict[int, object] = {}
        self.sizes: dict[int, int] = {}  # expanded size of each finished object
        self.expanded, self.budget = 0, budget

    def decode(self, node):
        t = type(node)
        self.expanded += 1
        if self.expanded > self.budget:
            raise _Invalid(
                f"its objects expand to more than {self.budget} values through shared "
                "references (a file save() never writes)"
            )
        if node is None or t in (bool, int, float, str):
            return node
        if t is list:
            return [self.decode(x) for x in node]
        if t is not dict:
            raise _Invalid(f"unexpected JSON value {node!r}")
        keys = set(node)
        if keys == {"__float__"}:
            if node["__float__"] not in _FLOATS:
                raise _Invalid(f"unknown float {node['__float__']!r}")
            return _FLOATS[node["__float__"]]
        if keys in ({"__numpy__", "value"}, {"__numpy__", "array"}):
            return self._scalar(node)
        if keys == {"__array__"}:
            return self._array(node["__array__"])
        if keys == {"__tuple__"}:
            return tuple(self.decode(x) for x in self._list(node["__tuple__"]))
        if keys == {"__dict__"}:
            pairs = [self._list(p) for p in self._list(node["__dict__"])]
            if any(len(p) != 2 for p in pairs):
                raise _Invalid("a dict entry is not a [key, value] pair")
            try:
                return {self.decode(k): self.decode(v) for k, v in pairs}
            except TypeError as exc:  # an unhashable key
                raise _Invalid(f"a dict key is not hashable ({exc})") from None
        if keys == {"__ref__"}:
            ref = node["__ref__"]
            if type(ref) is not int or ref not in self.sizes:
                raise _Invalid(f"reference {ref!r} to an object not read (or not finished) yet")
            self.expanded += self.sizes[ref]
            return self.objects[ref]
        if keys == {"__objects__", "shape", "id"}:
            return self._objects(node)
        if keys == {"__class__", "id", "state"}:
            return self._object(node)
        raise _Invalid(f"unknown JSON object with keys {sorted(keys)}")

    @staticmethod
    def _list(x) -> list:
        if type(x) is not list:
            raise _Invalid(f"expected a JSON list, got {x!r}")
        return x

    def _remember(self, k, obj):
        if type(k) is not int or k in self.objects:
            raise _Invalid(f"object id {k!r} is not a new integer")
        self.objects[k] = obj

    def _array(self, name) -> np.ndarray:
        if type(name) is not str or name not in self.arrays:
            raise _Invalid(f"missing array entry {name!r}")
        return self.arrays[name]

    def _scalar(self, node):
        try:
            dtype = np.dtype(node["__numpy__"])
        except (TypeError, ValueError):
            raise _Invalid(f"unknown dtype {node['__numpy__']!r}") from None
        if "array" in node:
            a = self._array(node["array"])
            if a.shape != () or a.dtype != dtype:
                raise _Invalid(f"scalar entry {node['array']!r} is not a 0-d {dtype} array")
            return a[()]
        value = self.decode(node["value"])
        expected = {"b": bool, "i": int, "u": int, "f": float, "U": str}.get(dtype.kind)
        if expected is None or type(value) is not expected or dtype.subdtype is not None:
            raise _Invalid(f"{value!r} is not a NumPy scalar of dtype {dtype}")
        if dtype.kind in "iu" and not np.iinfo(dtype).min <= value <= np.iinfo(dtype).max:
            raise _Invalid(f"{value} is out of the range of a NumPy scalar of dtype {dtype}")
        with np.errstate(over="ignore"):
            scalar = dtype.type(value)
        if dtype.kind == "f" and math.isfinite(value) and not np.isfinite(scalar):
            raise _Invalid(f"{value!r} is out of the range of a NumPy scalar of dtype {dtype}")
        return scalar

    def _objects(self, node) -> np.ndarray:
        shape = self._list(node["shape"])
        if not all(type(n) is int and n >= 0 for n in shape):
            raise _Invalid(f"bad object array shape {shape!r}")
        items = [self.decode(x) for x in self._list(node["__objects__"])]
        if len(items) != math.prod(shape):
            raise _Invalid(f"{len(items)} labels for an object array of shape {shape}")
        for x in items:
            if not isinstance(x, (*_LABEL_TYPES, np.generic)):
                raise _Invalid(f"object arrays hold labels, not {type(x).__name__}")
        a = np.empty(len(items), dtype=object)
        a[:] = items
        a = a.reshape(shape)
        self._remember(node["id"], a)
        self.sizes[node["id"]] = len(items) + 1
        return a

    def _object(self, node):
        name = node["__class__"]
        cls = self.by_name.get(name) if type(name) is str else None
        if cls is None:
            raise _Invalid(
                f"unknown class {name!r} (this bayesrule knows {sorted(self.by_name)}; a file "
                "from a newer bayesrule or a plug-in may need that package imported first)"
            )
        obj = cls.__new__(cls)
        self._remember(node["id"], obj)
        state, start = node["state"], self.expanded
        if type(state) is not dict:
            raise _Invalid(f"the state of a {name} is not a JSON object")
        kept = {}
        for k, v in state.items():
            what = _member(cls, k) if k.isidentifier() and not k.startswith("__") else "refuse"
            if what == "refuse":
                raise _Invalid(
                    f"the state of a {name} sets {k[:80]!r}, which is not an attribute "
                    "save() writes (it would replace or hide the class's own)"
                )
            value = self.decode(v)
            if what == "keep":
                kept[k] = value
        for k, value in added_parameters(cls).items():
            kept.setdefault(k, value)  # a file from before the parameter existed
        obj.__dict__.update(kept)
        self.sizes[node["id"]] = self.expanded - start
        return obj
