"""Files: atomic writes, the run file (``.npz``), graph series files for other tools."""

from . import atomic, npz, series_files
from .atomic import *  # noqa: F403
from .npz import *  # noqa: F403
from .series_files import *  # noqa: F403

__all__ = sorted({*atomic.__all__, *npz.__all__, *series_files.__all__})
