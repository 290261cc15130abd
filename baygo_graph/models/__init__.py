"""Models: what an agent believes and how it learns, pools and is scored.

The learning loop (:func:`baygo_graph.simulate`) asks a model, through its
``model=`` argument, for: the data split (``split``), a starting state for every
learner (``start``), each learner's batch statistics (``statistics``), the local
Bayesian update (``update``), BayGo's choices of the most divergent neighbour
(``most_divergent``), geometric pooling with chosen neighbours or a weight matrix
(``pool_choices``, ``pool_weights``), per-step measures (``measure``) and its
parameters for the run's config (``config``). :class:`~.grid.GridModel` gives all
of that to models on a parameter grid:

* :class:`LinearRegression` (``"linear"``, the default) - the paper's bodyfat
  regression.
* :class:`GaussianMean` (``"mean"``) - Gaussian mean estimation in 1 or 2
  dimensions, the classic social-learning setting.
* :class:`LogisticRegression` (``"logistic"``) - binary classification on any
  labelled CSV; test log-loss and error rate.

* :class:`ExactGaussian` (``"exact"``) - the paper's regression with exact Gaussian
  posteriors and no grid (kernels in :mod:`.exact`: closed-form update, KL and
  precision-weighted pooling on five numbers per agent): a million agents.

:class:`Model` is the protocol (``typing.Protocol``, runtime-checkable): a model
object is a frozen configuration that never changes during a run; its per-run state
is made by ``start``. :func:`resolve_model` turns a name into a model object with
options; :func:`register` makes a model known by name to every command (``--model``).
"""

from . import exact, gaussian, grid, kl, linear, logistic, mean, protocol, registry, segment
from .exact import *  # noqa: F403
from .gaussian import *  # noqa: F403
from .grid import *  # noqa: F403
from .kl import *  # noqa: F403
from .linear import *  # noqa: F403
from .logistic import *  # noqa: F403
from .mean import *  # noqa: F403
from .protocol import *  # noqa: F403
from .registry import *  # noqa: F403
from .segment import *  # noqa: F403

__all__ = [
    *exact.__all__,
    *gaussian.__all__,
    *grid.__all__,
    *kl.__all__,
    *linear.__all__,
    *logistic.__all__,
    *mean.__all__,
    *protocol.__all__,
    *registry.__all__,
    *segment.__all__,
]
