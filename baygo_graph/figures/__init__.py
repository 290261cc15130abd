"""Plots and animations: every plot takes ax= and returns it; nothing here recomputes.

Functions draw what :mod:`baygo_graph.analysis` (or a :class:`~baygo_graph.Run`)
gives them. Styling (seaborn's whitegrid, the colour-blind-safe Okabe-Ito
palette) applies only inside each call; importing this package changes no
matplotlib setting. Figures made from synthetic data carry a visible
"SYNTHETIC DATA" label.
"""

from . import _style, animation, connectivity, html, influence, mse, runs, theorem, topology
from ._style import *  # noqa: F403
from .animation import *  # noqa: F403
from .connectivity import *  # noqa: F403
from .html import *  # noqa: F403
from .influence import *  # noqa: F403
from .mse import *  # noqa: F403
from .runs import *  # noqa: F403
from .theorem import *  # noqa: F403
from .topology import *  # noqa: F403

__all__ = sorted(
    {
        *_style.__all__,
        *animation.__all__,
        *connectivity.__all__,
        *html.__all__,
        *influence.__all__,
        *mse.__all__,
        *runs.__all__,
        *theorem.__all__,
        *topology.__all__,
    }
)
