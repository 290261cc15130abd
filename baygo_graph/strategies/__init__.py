"""How the weight matrix W is chosen each step: the Strategy protocol and its strategies.

Row ``i`` of W holds agent ``i``'s pooling weights: ``w_ij`` is how much agent ``i``
listens to agent ``j``.

* :class:`BayGo` - every step, agent ``i`` listens to the physical neighbour ``s``
  whose local posterior diverges most from its own (KL kernels in :mod:`.kl`).
* :class:`FixedGraph` - the same W every step, from a NetworkX graph and a weight
  rule (:func:`complete`, :func:`star` and :func:`nocol` make the paper's baselines).
* :class:`Centralised` (``"cen"``) - one learner with all the training data;
  :class:`CentralisedStratified` (``"cen-stratified"``) - one learner fed every
  agent's own batch.

:func:`resolve_strategy` turns a name or a graph into one of these; any object with
a ``name`` and a ``start`` method (:class:`Strategy`) plugs into the loop, declaring
what it needs and offers in its :class:`Capabilities`. :class:`ChoiceStrategy` is
the base of dynamic strategies (one chosen neighbour per agent and step: write
``choose`` only); :func:`register` makes a strategy known by name to every command.
"""

from . import base, baygo, central, choice, fixed, kl, physical, registry, timevarying
from .base import *  # noqa: F403
from .baygo import *  # noqa: F403
from .central import *  # noqa: F403
from .choice import *  # noqa: F403
from .fixed import *  # noqa: F403
from .kl import *  # noqa: F403
from .physical import *  # noqa: F403
from .registry import *  # noqa: F403
from .timevarying import *  # noqa: F403

__all__ = [
    *base.__all__,
    *baygo.__all__,
    *central.__all__,
    *choice.__all__,
    *fixed.__all__,
    *kl.__all__,
    *physical.__all__,
    *registry.__all__,
    *timevarying.__all__,
]
