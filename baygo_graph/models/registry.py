"""Model names: turn ``"linear"`` (or another name) into a model object."""

from __future__ import annotations

from .gaussian import ExactGaussian
from .linear import LinearRegression
from .logistic import LogisticRegression
from .mean import GaussianMean

__all__ = ["MODEL_NAMES", "resolve_model"]

_MODELS = {
    "linear": LinearRegression,
    "mean": GaussianMean,
    "logistic": LogisticRegression,
    "exact": ExactGaussian,
}
#: Names understood by :func:`resolve_model`.
MODEL_NAMES = tuple(_MODELS)


def resolve_model(model=None, **options):
    """A model object from a name (with its keyword options) or an object (returned as is).

    Examples
    --------
    >>> resolve_model("linear", grid=21).grid
    21
    >>> resolve_model(None).name
    'linear'
    """
    if model is None:
        model = "linear"
    if isinstance(model, str):
        key = model.lower()
        if key not in _MODELS:
            raise ValueError(f"model must be one of {MODEL_NAMES} or a model object, got {model!r}")
        return _MODELS[key](**options)
    if options:
        raise TypeError(
            f"options {sorted(options)} go with a model name; set them on the model object "
            f"{type(model).__name__} instead"
        )
    if not all(hasattr(model, a) for a in ("start", "update", "measure", "split")):
        raise TypeError(f"model must be a name or a model object, got {type(model).__name__}")
    return model
