"""Synthetic user series of the influence and archive benchmarks (edge lists, several
in-edges per node and step): a hub series and an activity-driven one.

Both are synthetic: T steps of ``events // T`` directed contacts ``(source, target)``
(``target`` hears ``source``) on M integer-labelled nodes.

* hub - a share (default 30%) of the contacts involve node 0, half from it, half to it;
  the others join two uniformly random distinct nodes;
* activity-driven (Perra et al. 2012) - each contact's source is drawn with probability
  proportional to its activity ``a_i`` (power law of exponent 2.1 on [0.01, 1]), its
  target uniformly among the other nodes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["activity_frame", "hub_frame", "user_frame"]


def _others(rng, src: np.ndarray, m: int) -> np.ndarray:
    """A uniformly random node different from each ``src``."""
    return (src + rng.integers(1, m, size=len(src))) % m


def hub_frame(events: int, steps: int, nodes: int, *, rng, share: float = 0.3) -> pd.DataFrame:
    """``source, target, time`` of the hub series (module docstring)."""
    per = events // steps
    time = np.repeat(np.arange(steps, dtype=np.int64), per)
    n = len(time)
    src = rng.integers(0, nodes, size=n)
    dst = _others(rng, src, nodes)
    hub = rng.random(n) < share
    out = hub & (rng.random(n) < 0.5)
    src[out] = 0
    dst[out] = rng.integers(1, nodes, size=int(out.sum()))
    into = hub & ~out
    dst[into] = 0
    src[into] = rng.integers(1, nodes, size=int(into.sum()))
    return pd.DataFrame({"source": src, "target": dst, "time": time})


def activity_frame(events: int, steps: int, nodes: int, *, rng, gamma: float = 2.1,
                   low: float = 0.01) -> pd.DataFrame:  # fmt: skip
    """``source, target, time`` of the activity-driven series (module docstring)."""
    per = events // steps
    u = rng.random(nodes)  # inverse CDF of a^-gamma on [low, 1]
    a = (low ** (1 - gamma) + u * (1 - low ** (1 - gamma))) ** (1 / (1 - gamma))
    time = np.repeat(np.arange(steps, dtype=np.int64), per)
    src = rng.choice(nodes, size=len(time), p=a / a.sum())
    dst = _others(rng, src, nodes)
    return pd.DataFrame({"source": src, "target": dst, "time": time})


def user_frame(kind: str, events: int, steps: int, nodes: int, *, seed: int = 0) -> pd.DataFrame:
    """The ``kind`` (``"hub"`` or ``"activity"``) frame with its own seeded generator."""
    rng = np.random.default_rng(seed)
    make = {"hub": hub_frame, "activity": activity_frame}[kind]
    return make(events, steps, nodes, rng=rng)
