"""Data: data sets (the bodyfat loader, synthetic generators, user CSVs) and agent splits.

* :mod:`.datasets` - :class:`Dataset`, :func:`load_bodyfat`, :func:`synthetic_bodyfat`,
  :func:`resolve_data`;
* :mod:`.core` - :class:`Split` (each agent's samples, the test set),
  :func:`paper_split` (the paper's split) and :func:`draw_batches`;
* :mod:`.splits` - :func:`shared_split`, the paper's split in O(M + N) memory;
* :mod:`.labelled` and :mod:`.labelled_datasets` - labelled and Gaussian-sample data
  sets and their splits (for the logistic and Gaussian-mean models).

The bottom of the package's layer order: it imports only ``_validate``,
``exceptions`` and ``defaults``.
"""

from ..defaults import BODYFAT_ENV  # noqa: F401 (listed in __all__)
from ..exceptions import DataError  # noqa: F401 (listed in __all__)
from . import core, datasets, labelled, labelled_datasets, splits
from .core import *  # noqa: F403
from .datasets import *  # noqa: F403
from .labelled import *  # noqa: F403
from .labelled_datasets import *  # noqa: F403
from .splits import *  # noqa: F403

__all__ = sorted(
    {
        "BODYFAT_ENV",
        "DataError",
        *core.__all__,
        *datasets.__all__,
        *labelled.__all__,
        *labelled_datasets.__all__,
        *splits.__all__,
    }
)
