"""Shared look of every figure: palette, labels, the informative agent's mark.

Nothing here touches matplotlib's global state at import: :func:`figure_style`
is a context manager that every plot function enters while it draws.
"""

from __future__ import annotations

import contextlib
import textwrap

import numpy as np

# the synthetic-data mark's text, artist id and file metadata live in _text (io's
# figure writer reads them too); here for the figures and their users
from .._text import (
    SYNTHETIC_GID,
    SYNTHETIC_TEXT,
    counted,
    figure_label,
    figure_metadata,
    loss_label,
    mathtext,
    shorten,
)

__all__ = [
    "AGENT_LABEL",
    "CAPTION_GID",
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
    "loss_axis_label",
    "loss_name_of",
    "frame_caption",
    "run_caption",
    "describe_seeds",
    "figure_metadata",
    "is_synthetic",
    "source_caption",
    "source_text",
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


def loss_name_of(data) -> str:
    """The loss a run or a table holds in its ``mse`` field (``run.loss_name``, a
    comparison table's ``attrs["loss"]``; ``"mse"`` when not recorded)."""
    name = getattr(data, "loss_name", None)
    if name is None:
        attrs = getattr(data, "attrs", None) or {}
        name = attrs.get("loss", "mse")
    return str(name)


def loss_axis_label(name: str) -> str:
    """A loss's axis label: :data:`MSE_LABEL` for the MSE, ``"test <loss>"`` otherwise
    (a logistic run's log-loss is no MSE: hostile21 Z12).

    Examples
    --------
    >>> loss_axis_label("mse"), loss_axis_label("log_loss")
    ('test MSE (standardised units)', 'test log-loss')
    """
    return MSE_LABEL if name == "mse" else f"test {figure_label(loss_label(name))}"


STEP_LABEL = "step t (iterations)"
INFLUENCE_LABEL = "influence (left Perron vector entry, sums to 1)"
AGENT_LABEL = "agent"

_EXTRA_COLORS = [_OKABE_ITO[k] for k in ("skyblue", "yellow", "vermillion", "black")]


def strategy_color(name: str, index: int = 0) -> str:
    """The colour of a strategy (a fallback from the same palette for other names)."""
    return STRATEGY_COLORS.get(name, _EXTRA_COLORS[index % len(_EXTRA_COLORS)])


def strategy_label(name: str, *, math: bool = True) -> str:
    """The display name of a strategy (the name itself when unknown).

    With ``math`` (for matplotlib text) a user's name is escaped so that ``$`` in it
    is shown, never parsed as mathtext (:func:`baygo_graph._text.mathtext`).

    Examples
    --------
    >>> strategy_label("posm"), strategy_label("my $x$"), strategy_label("my $x$", math=False)
    ('star PosM', 'my \\\\$x\\\\$', 'my $x$')
    """
    label = STRATEGY_LABELS.get(name, str(name))
    return figure_label(label) if math else label


@contextlib.contextmanager
def figure_style():
    """Seaborn's whitegrid look (its rc values, :data:`._palettes.SEABORN_LOOK`: seaborn
    is not imported) and the package palette, for the ``with`` block only.

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

    from ._palettes import SEABORN_LOOK

    palette = list(STRATEGY_COLORS.values())
    with mpl.rc_context(
        SEABORN_LOOK
        | {
            "axes.prop_cycle": mpl.cycler(color=palette),
            "legend.frameon": True,
            "legend.framealpha": 0.85,
            "figure.dpi": 100,
            "animation.embed_limit": 50.0,
        }
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


def mark_synthetic(target, synthetic: bool = True, *, xy=(0.5, 0.5), fontsize=26, rotation=20):
    """Write a visible "SYNTHETIC DATA" label on an Axes or a Figure.

    Does nothing when ``synthetic`` is False; returns the Text artist (or None).
    ``xy`` (axes or figure fraction), ``fontsize`` and ``rotation`` place it.
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
        "rotation": rotation,
        "fontsize": fontsize,
        "fontweight": "bold",
        "color": INFORMATIVE_COLOR,
        "alpha": 0.3,
        "zorder": 100,
        "gid": SYNTHETIC_GID,
    }
    if isinstance(target, Figure):
        return target.text(*xy, SYNTHETIC_TEXT, transform=target.transFigure, **kw)
    return target.text(*xy, SYNTHETIC_TEXT, transform=target.transAxes, **kw)


#: Artist id of the caption naming a figure's data source and seeds.
CAPTION_GID = "baygo-source-caption"


def describe_seeds(seeds) -> str:
    """``"seeds 0-19"``, ``"seed 3"`` or ``"seeds 1, 4, 9"`` for a collection of seeds.

    Examples
    --------
    >>> describe_seeds(range(20)), describe_seeds([3]), describe_seeds(["a", "b"])
    ('seeds 0-19', 'seed 3', 'seeds a, b')
    """
    values = list(dict.fromkeys(seeds))
    if len(values) == 1:
        return f"seed {values[0]}"
    ints = all(isinstance(v, int | np.integer) for v in values)
    if ints and len(values) > 2 and sorted(values) == list(range(min(values), max(values) + 1)):
        return f"seeds {min(values)}-{max(values)}"
    shown = ", ".join(map(str, values[:6]))
    return (
        f"seeds {shown}{', ...' if len(values) > 6 else ''} ({len(values)})"
        if len(values) > 6
        else f"seeds {shown}"
    )


def source_text(data, *, synthetic: bool = False, seeds=None) -> str:
    """``"data: bodyfat.csv; seeds 0-19"``: the caption of :func:`source_caption`.

    ``data`` is a path or a name (its file name is kept); synthetic data read
    ``"synthetic"``. ``seeds`` is a collection (see :func:`describe_seeds`) or a
    ready string.

    Examples
    --------
    >>> source_text("/x/bodyfat.csv", seeds=range(3))
    'data: bodyfat.csv; seeds 0-2'
    >>> source_text("anything", synthetic=True, seeds="seed 0 (20 replicates)")
    'data: synthetic; seed 0 (20 replicates)'
    """
    from pathlib import PurePath

    name = "synthetic" if synthetic else (PurePath(str(data)).name if data else "unknown")
    name = mathtext(shorten(name, 80))  # "$x$.csv" shown, not parsed; run metadata bounded
    parts = [f"data: {name}"]
    if seeds is not None:
        parts.append(seeds if isinstance(seeds, str) else describe_seeds(seeds))
    return "; ".join(parts)


def source_caption(target, text: str | None):
    """Write ``text`` (see :func:`source_text`) small, at the figure's bottom left.

    ``target`` is an Axes or a Figure. The caption is the figure's ``supxlabel``
    (constrained layout keeps room for it, so it stays inside the canvas, also
    for animation frames), with gid :data:`CAPTION_GID`. Returns the Text
    artist, or None when ``text`` is None.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(layout="constrained")
    >>> source_caption(ax, "data: synthetic; seed 0").get_gid()
    'baygo-source-caption'
    >>> plt.close(fig)
    """
    if text is None:
        return None
    fig = target.get_figure(root=True) if hasattr(target, "get_figure") else target
    # wrapped to the figure's width (about 16 x-small characters per inch): on the canvas
    text = textwrap.fill(text, width=max(40, int(16 * fig.get_figwidth())))
    label = fig.supxlabel(text, x=0.005, ha="left", fontsize="x-small", color="#555555")
    label.set_gid(CAPTION_GID)
    return label


def frame_caption(df, synthetic=None) -> str | None:
    """The source caption of a :func:`baygo_graph.experiments.compare` result (its attrs)."""
    attrs = getattr(df, "attrs", None) or {}
    if "data_source" not in attrs and "synthetic" not in attrs:
        return None
    seeds = None
    n = getattr(df, "n_seeds", None)  # a Comparison
    if n is None and "seed" in getattr(df, "columns", ()):
        n = df["seed"].nunique()
    if n is not None:
        root = attrs.get("entropy")
        seeds = f"{counted(n, 'seed')}" + (f" from root seed {root}" if root else "")
    return source_text(attrs.get("data_source"), synthetic=is_synthetic(df, synthetic), seeds=seeds)


def run_caption(run) -> str:
    """The source caption of one :class:`~baygo_graph.Run`: its data and its seed.

    A seed spawned by ``compare`` (``{"entropy", "spawn_key"}``) reads
    ``"root seed E, replicate k"``.

    Examples
    --------
    >>> from baygo_graph import Run
    >>> run_caption(Run.from_choices([[1, 0]]))
    'data: unknown; seed None'
    """
    seed = run.config.get("seed")
    if isinstance(seed, dict) and seed.get("spawn_key"):
        key = "/".join(map(str, seed["spawn_key"]))
        seed = f"root seed {seed.get('entropy')}, replicate {key}"
    else:
        seed = f"seed {seed}"
    return source_text(run.data_source, synthetic=run.synthetic, seeds=seed)
