"""One claim of the paper and its verdict: the record every claim test returns.

A verdict is one of: "holds", "does not hold" (the theorem: "violated where
informative"), "cannot tell at N seeds" (the interval straddles the margin: no
finding either way), "vacuous" (the theorem's right side says nothing in (almost)
every pair) or "not evaluated" (the numbers needed are missing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._text import counted

__all__ = ["OUTCOMES", "Claim"]

#: The outcomes a claim may carry beside holds / does not hold.
OUTCOMES = ("", "cannot tell", "violated", "vacuous")


@dataclass(frozen=True)
class Claim:
    """One claim of the paper and whether this run's numbers support it.

    Attributes
    ----------
    key : str
        Identifier, one of :data:`CLAIM_KEYS`.
    claim : str
        What the paper says, in one sentence.
    test : str
        The exact test applied to the numbers.
    holds : bool or None
        The decided verdict; None when undecided ("cannot tell", "vacuous") or
        when the numbers needed are missing.
    evidence : str
        The numbers the verdict rests on.
    values : dict
        The same numbers, machine-readable.
    note : str
        A plain sentence where the data contradict the paper's premise (empty if none).
    outcome : str
        ``""`` (read ``holds``), ``"cannot tell"`` (the interval straddles the
        margin), ``"violated"`` (the theorem's bound is exceeded: ``holds`` is
        False; read "violated where informative") or ``"vacuous"`` (the theorem's
        right side is informative, < 1, in too few pairs to say anything).
    n : int or None
        Number of seeds the verdict rests on.

    Examples
    --------
    >>> Claim("k", "c", "t", None, "e", outcome="cannot tell", n=20).verdict
    'cannot tell at 20 seeds'
    >>> Claim("k", "c", "t", False, "e", n=20).verdict
    'does not hold'
    """

    key: str
    claim: str
    test: str
    holds: bool | None
    evidence: str
    values: dict = field(default_factory=dict)
    note: str = ""
    outcome: str = ""
    n: int | None = None

    def __post_init__(self):
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}, got {self.outcome!r}")
        if self.outcome in ("cannot tell", "vacuous") and self.holds is not None:
            raise ValueError(f"outcome {self.outcome!r} needs holds=None, got {self.holds!r}")
        if self.outcome == "violated" and self.holds is not False:
            raise ValueError(f"outcome 'violated' needs holds=False, got {self.holds!r}")

    @property
    def decided(self) -> bool:
        """Whether the verdict is a finding (holds, does not hold or violated)."""
        return self.holds is not None

    @property
    def verdict(self) -> str:
        """``"holds"``, ``"does not hold"``, ``"violated where informative"``,
        ``"vacuous"``, ``"cannot tell at N seeds"`` or ``"not evaluated"``."""
        if self.outcome == "cannot tell":
            return f"cannot tell at {counted(self.n, 'seed')}"
        if self.outcome == "violated":
            return "violated where informative"
        if self.outcome:
            return self.outcome
        if self.holds is None:
            return "not evaluated"
        return "holds" if self.holds else "does not hold"
