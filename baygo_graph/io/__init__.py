"""Files: atomic writes, the run file (``.npz``), graph series files for other tools."""

from .atomic import *  # noqa: F403
from .npz import *  # noqa: F403
from .series_files import *  # noqa: F403
