"""One claim of the paper and its verdict: the record every claim test returns."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Claim"]


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
        The verdict; None when the numbers needed are missing.
    evidence : str
        The numbers the verdict rests on.
    values : dict
        The same numbers, machine-readable.
    note : str
        A plain sentence where the data contradict the paper's premise (empty if none).
    """

    key: str
    claim: str
    test: str
    holds: bool | None
    evidence: str
    values: dict = field(default_factory=dict)
    note: str = ""

    @property
    def verdict(self) -> str:
        """``"holds"``, ``"does not hold"`` or ``"not evaluated"``."""
        if self.holds is None:
            return "not evaluated"
        return "holds" if self.holds else "does not hold"
