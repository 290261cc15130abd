"""The paper reproduction: claims, report and the pipeline that writes them.

* :mod:`.claims` - :class:`Claim` and :func:`evaluate_claims` (verdicts computed
  from the comparison table);
* :mod:`.report` - the Markdown of report.md and summary.md, the figures list;
* :mod:`.drawing` - the figures of the reproduction and of one run;
* :mod:`.pipeline` - :func:`reproduce`: run, measure, draw, write.
"""

from .._format import markdown_table
from .claims import CLAIM_KEYS, MIN_WINDOWS, STRATEGIES, Claim, evaluate_claims
from .drawing import run_figures, run_influence
from .pipeline import Reproduction, reproduce
from .report import FIGURES, GALLERY

__all__ = [
    "CLAIM_KEYS",
    "FIGURES",
    "GALLERY",
    "MIN_WINDOWS",
    "STRATEGIES",
    "Claim",
    "Reproduction",
    "evaluate_claims",
    "markdown_table",
    "reproduce",
    "run_figures",
    "run_influence",
]
