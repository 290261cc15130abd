"""The paper's defaults, once, and the one window rule every function uses.

:data:`PAPER` holds the set-up of the paper's experiments (agents, steps, delta,
grid, prior, data split, seeds, influence window); every signature that defaults
to one of them reads it from here. :func:`resolve_window` is the one rule for an
analysis window over a run of ``T`` steps: the default is ``min(10, T)``, a longer
window is cut to ``T`` with a note saying so.

This module imports nothing of the package (the bottom of the layer order).
"""

from __future__ import annotations

from dataclasses import dataclass

from ._text import counted

__all__ = [
    "BODYFAT_ENV",
    "DEFAULT_WINDOW",
    "PAPER",
    "REFERENCE_LABEL",
    "PaperDefaults",
    "resolve_window",
]

#: Environment variable naming the bodyfat CSV (read when no data are given).
BODYFAT_ENV = "BAYGO_BODYFAT"


@dataclass(frozen=True)
class PaperDefaults:
    """The paper's experimental set-up (see the paper page of the docs, ``docs/paper.md``).

    Attributes
    ----------
    agents, steps, seeds : int
        M = 12 agents, T = 60 steps, 20 seeds.
    delta : float
        Self-weight of pooling, 0.5.
    batch : int
        One sample per agent per step.
    grid : int
        61 points per axis of the (intercept, slope) grid over ``bounds`` (-2, 2).
    prior_var : (float, float)
        Variances of the Gaussian prior.
    test_fraction, informative_range, other_range
        The bodyfat split: 20% held out; the informative agent's Abdomen range
        (85, 120), the others' (70, 85).
    window : int
        The influence window (10 steps).
    """

    agents: int = 12
    steps: int = 60
    seeds: int = 20
    delta: float = 0.5
    batch: int = 1
    grid: int = 61
    bounds: tuple = (-2.0, 2.0)
    prior_var: tuple = (0.5, 0.5)
    test_fraction: float = 0.2
    informative_range: tuple = (85.0, 120.0)
    other_range: tuple = (70.0, 85.0)
    window: int = 10


#: The paper's set-up.
PAPER = PaperDefaults()
#: The label of the paper's ideal benchmark (the centralised learner) in comparison
#: tables: the reference of "steps to Cen" in the summaries (a table label, not a switch
#: on a strategy: a table without it has no such column value).
REFERENCE_LABEL = "cen"
#: The default analysis window (before it is cut to the run's length).
DEFAULT_WINDOW = PAPER.window


def resolve_window(window, steps: int) -> tuple[int, str]:
    """The window used over a run of ``steps`` steps, and a note when it was cut.

    Parameters
    ----------
    window : int or None
        The window asked for (>= 1); None: the default, ``min(10, steps)``.
    steps : int
        The run's number of steps T.

    Returns
    -------
    window : int
        ``min(window, steps)``.
    note : str
        "" unless a window longer than the run was cut to it.

    Examples
    --------
    >>> resolve_window(None, 60), resolve_window(None, 4)
    ((10, ''), (4, ''))
    >>> resolve_window(25, 8)
    (8, 'window 25 is longer than the run (8 steps): cut to 8')
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    if window is None:
        return min(DEFAULT_WINDOW, steps), ""
    if isinstance(window, bool) or not hasattr(window, "__index__") or int(window) < 1:
        raise ValueError(f"window must be an integer >= 1 or None, got {window!r}")
    window = int(window)
    if window > steps:
        return (
            steps,
            f"window {window} is longer than the run ({counted(steps, 'step')}): cut to {steps}",
        )
    return window, ""
