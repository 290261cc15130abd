"""Shared look of every figure: palette, labels, the informative agent's mark.

Nothing here touches matplotlib's global state at import: :func:`figure_style`
is a context manager that every plot function enters while it draws.
"""

from __future__ import annotations

import contextlib

import numpy as np

__all__ = [
    "AGENT_LABEL",
    "INFLUENCE_LABEL",
    "INFORMATIVE_COLOR",
    "INFORMATIVE_MARKER",
    "MSE_LABEL",
    "OTHERS_LINESTYLE",
    "SINGLE_LEARNERS",
    "STEP_LABEL",
    "STRATEGY_COLORS",
    "STRATEGY_LABELS",
    "SYNTHETIC_GID",
    "SYNTHETIC_TEXT",
    "figure_style",
    "is_synthetic",
    "mark_synthetic",
    "new_axes",
    "strategy_color",
    "strategy_label",
]

# Okabe & Ito (2008), the colour-blind-safe qualitative palette.
_OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "skyblue": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
}

#: Colour of each strategy, the same in every figure.
STRATEGY_COLORS = {
    "baygo": _OKABE_ITO["blue"],
    "complete": _OKABE_ITO["orange"],
    "posm": _OKABE_ITO["green"],
    "negm": _OKABE_ITO["purple"],
    "nocol": "#7F7F7F",
    "cen": _OKABE_ITO["black"],
}
#: Display names of the strategies.
STRATEGY_LABELS = {
    "baygo": "BayGo",
    "complete": "complete graph",
    "posm": "star PosM",
    "negm": "star NegM",
    "nocol": "NoCol",
    "cen": "Cen",
}
#: Strategies whose agents are one learner (one MSE curve in the table figures).
SINGLE_LEARNERS = frozenset({"cen", "cen-stratified"})
#: The informative agent is drawn with this marker and colour everywhere.
INFORMATIVE_MARKER = "*"
INFORMATIVE_COLOR = _OKABE_ITO["vermillion"]
#: Line style of the non-informative agents' mean curve (informative: solid).
OTHERS_LINESTYLE = "--"

MSE_LABEL = "test MSE (standardised units)"
STEP_LABEL = "step t (iterations)"
INFLUENCE_LABEL = "influence (left Perron vector entry, sums to 1)"
AGENT_LABEL = "agent"

#: Text and artist id of the label that marks figures made from synthetic data.
SYNTHETIC_TEXT = "SYNTHETIC DATA"
SYNTHETIC_GID = "baygo-synthetic-label"

_EXTRA_COLORS = [_OKABE_ITO[k] for k in ("skyblue", "yellow", "vermillion", "black")]


def strategy_color(name: str, index: int = 0) -> str:
    """The colour of a strategy (a fallback from the same palette for other names)."""
    return STRATEGY_COLORS.get(name, _EXTRA_COLORS[index % len(_EXTRA_COLORS)])


def strategy_label(name: str) -> str:
    """The display name of a strategy (the name itself when unknown)."""
    return STRATEGY_LABELS.get(name, str(name))


@contextlib.contextmanager
def figure_style():
    """Seaborn's whitegrid look and the package palette, for the ``with`` block only.

    Examples
    --------
    >>> import matplotlib as mpl
    >>> before = dict(mpl.rcParams)
    >>> with figure_style():
    ...     mpl.rcParams["axes.grid"]
    True
    >>> dict(mpl.rcParams) == before
    True
    """
    import matplotlib as mpl
    import seaborn as sns

    palette = list(STRATEGY_COLORS.values())
    with (
        sns.axes_style("whitegrid"),
        sns.plotting_context("notebook", font_scale=0.9),
        mpl.rc_context(
            {
                "axes.prop_cycle": mpl.cycler(color=palette),
                "legend.frameon": True,
                "legend.framealpha": 0.85,
                "figure.dpi": 100,
                "animation.embed_limit": 50.0,
            }
        ),
    ):
        yield


def new_axes(ax=None, *, figsize=(6.4, 4.2)):
    """``ax`` itself, or the axes of a new figure (call inside :func:`figure_style`)."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def is_synthetic(data, synthetic=None) -> bool:
    """Whether ``data`` (a Run, a DataFrame with ``attrs``, a result) is synthetic.

    An explicit ``synthetic`` wins; otherwise the object's ``synthetic``
    attribute or ``attrs["synthetic"]`` is read (False when absent).
    """
    if synthetic is not None:
        return bool(synthetic)
    attrs = getattr(data, "attrs", None)
    if isinstance(attrs, dict) and "synthetic" in attrs:
        return bool(attrs["synthetic"])
    value = getattr(data, "synthetic", False)
    return bool(value) if isinstance(value, bool | np.bool_) else False


def mark_synthetic(target, synthetic: bool = True):
    """Write a visible "SYNTHETIC DATA" label on an Axes or a Figure.

    Does nothing when ``synthetic`` is False; returns the Text artist (or None).
    The label has ``gid`` :data:`SYNTHETIC_GID`, so tests and tools can find it.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> mark_synthetic(ax).get_text()
    'SYNTHETIC DATA'
    >>> plt.close(fig)
    """
    if not synthetic:
        return None
    from matplotlib.figure import Figure

    kw = {
        "ha": "center",
        "va": "center",
        "rotation": 20,
        "fontsize": 26,
        "fontweight": "bold",
        "color": INFORMATIVE_COLOR,
        "alpha": 0.3,
        "zorder": 100,
        "gid": SYNTHETIC_GID,
    }
    if isinstance(target, Figure):
        return target.text(0.5, 0.5, SYNTHETIC_TEXT, transform=target.transFigure, **kw)
    return target.text(0.5, 0.5, SYNTHETIC_TEXT, transform=target.transAxes, **kw)
