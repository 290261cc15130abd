"""Model names: one registry table from a name to a model class, open to plug-ins.

:func:`register` adds a model under a name (from any module; no package file is
edited); :func:`resolve_model` turns a name or an object, with options, into a
model object; :func:`model_names` lists what is registered.
"""

from __future__ import annotations

import dataclasses
import inspect

from .. import _text
from .._validate import check_registry_name
from .gaussian import ExactGaussian
from .linear import LinearRegression
from .logistic import LogisticRegression
from .mean import GaussianMean
from .protocol import MODEL_METHODS, Model

__all__ = [
    "DEFAULT_MODEL",
    "MODEL_NAMES",
    "model_names",
    "model_options",
    "model_settings",
    "register",
    "resolve_model",
]

#: The model of a run when none is named: the paper's linear regression.
DEFAULT_MODEL = "linear"

_REGISTRY: dict = {}


def register(name: str, factory, *, replace: bool = False) -> None:
    """Register a model under ``name``: usable by every command that takes ``--model``.

    Parameters
    ----------
    name : str
        The model's name (lower case, no spaces).
    factory : callable
        Called with the model's options as keywords (a model class works as is);
        returns a model object (:class:`~baygo_graph.models.Model`).
    replace : bool, default False
        Allow replacing a registered name (otherwise a ValueError).

    Examples
    --------
    >>> register("fine-linear", lambda **o: LinearRegression(**({"grid": 81} | o)), replace=True)
    >>> resolve_model("fine-linear").grid
    81
    """
    check_registry_name(name)
    if not callable(factory):
        raise TypeError(f"factory must be callable, got {type(factory).__name__}")
    if name in _REGISTRY and not replace:
        raise ValueError(f"model name {name!r} is taken: pass replace=True to replace it")
    _REGISTRY[name] = factory


def model_names() -> tuple:
    """The registered model names, built-in first.

    Examples
    --------
    >>> model_names()[:2]
    ('linear', 'mean')
    """
    return tuple(_REGISTRY)


def model_options(name: str) -> tuple | None:
    """The option names a registered model takes (its factory's keywords, sorted), or
    None when its factory takes any keyword (``**options``).

    Examples
    --------
    >>> model_options("linear")[:3], model_options("exact")[-2:]
    (('bounds', 'dtype', 'grid'), ('sigma_scale', 'test_fraction'))
    """
    factory = _REGISTRY[name.lower()]
    if dataclasses.is_dataclass(factory):
        return tuple(sorted(f.name for f in dataclasses.fields(factory) if f.init))
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature
        return None
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    keywords = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return tuple(sorted(p.name for p in parameters if p.kind in keywords))


def model_settings(model) -> dict:
    """A built model's options as a record says them (JSON values): each option of a
    dataclass model, its grid as points per axis (``[21, 21]``, as a run's config), an
    array option (an ``assignment``) as its length; {} for a model that is no dataclass.

    Examples
    --------
    >>> s = model_settings(resolve_model("linear", grid=21))
    >>> s["grid"], s["bounds"], s["sigma"]
    ([21, 21], [-2.0, 2.0], None)
    """
    if not dataclasses.is_dataclass(model):
        return {}
    out = {}
    for field in dataclasses.fields(model):
        if not field.init:
            continue
        value = getattr(model, field.name)
        if hasattr(value, "__len__") and not isinstance(value, str | tuple | list):
            value = _text.counted(len(value), "value")  # an array: named, not copied into a record
        out[field.name] = _plain(value)
    if "grid" in out and hasattr(model, "grid_shape"):
        out["grid"] = [int(n) for n in model.grid_shape()]
    return out


def _plain(value):
    """``value`` with tuples as lists and numpy scalars as Python numbers."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:
        return value.item()
    return value


def resolve_model(model=None, **options):
    """A model object from a name or an object, with options set on it.

    Parameters
    ----------
    model : str, model object or None
        A registered name (:func:`model_names`), a model object (returned as is, or
        a copy with ``options`` replaced when it is a dataclass), or None: the
        default :data:`DEFAULT_MODEL`.
    **options
        The model's options (its class's keyword arguments).

    Examples
    --------
    >>> resolve_model("linear", grid=21).grid
    21
    >>> resolve_model(None).name
    'linear'
    >>> resolve_model(LinearRegression(grid=11), bounds=(-1, 1)).grid
    11
    """
    if model is None:
        model = DEFAULT_MODEL
    if isinstance(model, str):
        key = model.lower()
        if key not in _REGISTRY:
            raise ValueError(
                f"model must be one of {model_names()} (or registered with "
                f"baygo_graph.models.register) or a model object, got {model!r}"
            )
        model = _REGISTRY[key](**options)
    elif options:
        if not dataclasses.is_dataclass(model):
            raise TypeError(
                f"options {sorted(options)} go with a model name or a dataclass model; set "
                f"them on the model object {type(model).__name__} instead"
            )
        known = {f.name for f in dataclasses.fields(model) if f.init}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(
                f"{', '.join(unknown)} are not options of model {getattr(model, 'name', model)!r}"
                f" (its options: {', '.join(sorted(known))})"
            )
        model = dataclasses.replace(model, **options)
    if not isinstance(model, Model):
        missing = [a for a in MODEL_METHODS if not hasattr(model, a)]
        raise TypeError(
            f"model must be a name or a model object (baygo_graph.models.Model), got "
            f"{type(model).__name__} without {', '.join(sorted(missing))}"
        )
    return model


register("linear", LinearRegression)
register("mean", GaussianMean)
register("logistic", LogisticRegression)
register("exact", ExactGaussian)

#: The built-in names (registered plug-ins are in :func:`model_names`).
MODEL_NAMES = model_names()
