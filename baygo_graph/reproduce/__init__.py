"""The paper reproduction: claims, report and the pipeline that writes them.

* :mod:`.claims` - :class:`Claim` and :func:`evaluate_claims` (verdicts computed
  from the comparison table);
* :mod:`.report` - the Markdown of report.md and summary.md, the figures list;
* :mod:`.drawing` - the figures of the reproduction and of one run;
* :mod:`.consensus` - the consensus step, read from the MSE and from beliefs;
* :mod:`.sentences` - the paper's own sentences about its figures, as claims;
* :mod:`.theorem` - the true parameter and the claim lines of the paper's bound;
* :mod:`.horizon` - the long BayGo runs: theorem check and horizon study;
* :mod:`.regimes` - :func:`regimes`: where each claim holds (batch, delta, grid, noise);
* :mod:`.pipeline` - :func:`reproduce`: run, measure, draw, write.
"""

from .._format import markdown_table
from .claims import (
    BASELINES,
    CLAIM_KEYS,
    CONTRASTS,
    MIN_WINDOWS,
    STRATEGIES,
    Claim,
    evaluate_claims,
)
from .consensus import BELIEF_TOLERANCE, TOLERANCES, belief_spread, consensus_steps
from .drawing import run_figures, run_influence
from .horizon import HORIZONS, LongRuns, horizon_summary, long_runs
from .pipeline import Reproduction, reproduce
from .regimes import DEFAULT as DEFAULT_REGIME
from .regimes import (
    FACTORS,
    RegimeMap,
    escalating,
    look_level,
    plot_regimes,
    regime_list,
    regimes,
    seed_rounds,
)
from .report import FIGURES, GALLERY
from .sentences import SENTENCES, sentence_claims
from .theorem import TruthMonitor, standardised_line

__all__ = [
    "BASELINES",
    "BELIEF_TOLERANCE",
    "SENTENCES",
    "belief_spread",
    "escalating",
    "sentence_claims",
    "CLAIM_KEYS",
    "CONTRASTS",
    "DEFAULT_REGIME",
    "FACTORS",
    "HORIZONS",
    "LongRuns",
    "RegimeMap",
    "TOLERANCES",
    "TruthMonitor",
    "consensus_steps",
    "horizon_summary",
    "long_runs",
    "look_level",
    "plot_regimes",
    "regime_list",
    "regimes",
    "seed_rounds",
    "standardised_line",
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
