"""Ctrl-C while the ``baygo`` command is still importing the package.

The command's own handler (:func:`baygo_graph.cli.main`: ``baygo: aborted``, exit code
1) starts only once numpy, SciPy, pandas and matplotlib are imported, seconds on a busy
machine; a Ctrl-C before that printed an import traceback. Imported first by the
package, this module gives the ``baygo`` script the same one line from its first
moment; :func:`baygo_graph.cli.main` puts Python's own handler back. Importing the
package from Python changes nothing (the script's name decides).
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["aborted_while_starting"]


def aborted_while_starting(signum, frame):  # pragma: no cover - timing-dependent
    """``baygo: aborted`` on stderr and exit code 1, as the command says it later."""
    sys.stderr.write("baygo: aborted\n")
    raise SystemExit(1)


if (
    os.path.basename(sys.argv[0] if sys.argv else "") in ("baygo", "baygo.exe")
    and signal.getsignal(signal.SIGINT) is signal.default_int_handler
):
    signal.signal(signal.SIGINT, aborted_while_starting)
