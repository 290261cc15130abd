"""Printed counts go through one helper, ``_text.counted``: "rises in 1 seeds" and "the
union of all 1 step" (newcomer6) came from hand-made plurals."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path
from types import SimpleNamespace

import pytest

import baygo_graph
from baygo_graph._render import b_text
from baygo_graph._text import counted
from baygo_graph.analysis import BCoverage

PACKAGE = Path(baygo_graph.__file__).parent
#: Words printed after a number in the package's text.
WORDS = (
    "steps seeds runs nodes windows rows files agents edges tasks columns lines values cells "
    "groups events labels workers points contacts members results regimes warnings "
    "strategies entries"
).split()
#: ``{expr} word`` where ``expr`` is no count (a kind, a type, a number already formatted).
NOT_COUNTS = {"kind", "dtype", "kind.__name__", "cov.windows", "_fmt(np.nanmax(tails[ok]))", "m",
              "big_int(steps)"}  # fmt: skip
_COUNT_WORD = re.compile(r"\{([^{}!:]+?)(?::[^{}]*)?\} (" + "|".join(WORDS) + r")\b")
_HAND_PLURAL = re.compile(r"\{'s' if |\{'' if |\{'s' \*|\} \w+\(s\)")


def _fstrings():
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text()
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.STRING and "f" in tok.string.split("'")[0].split('"')[0]:
                yield f"{path.relative_to(PACKAGE)}:{tok.start[0]}", tok.string


def test_every_printed_count_says_its_noun_through_counted():
    bare = [
        f"{where}: {m.group(0)}"
        for where, text in _fstrings()
        for m in _COUNT_WORD.finditer(text)
        if m.group(1).strip() not in NOT_COUNTS
    ]
    hand = [f"{where}: {text[:80]}" for where, text in _fstrings() if _HAND_PLURAL.search(text)]
    assert not bare and not hand, bare + hand


@pytest.mark.parametrize(
    ("n", "word", "plural", "said"),
    [(1, "seed", None, "1 seed"), (0, "seed", None, "0 seeds"),
     (2, "entry", "entries", "2 entries"), (1, "strategy", "strategies", "1 strategy")],
)  # fmt: skip
def test_counted(n, word, plural, said):
    assert counted(n, word, plural) == said


def test_a_one_step_run_is_not_the_union_of_all_1_step():
    cov = BCoverage(None, "sliding", "drop", 1, 0, 0, None, None, 1, False)
    assert (
        b_text(cov)
        == "no B up to 1 works (sliding windows): the one step is not strongly connected"
    )


def test_the_report_says_rises_in_1_seed():
    from baygo_graph.reproduce.report import _effect

    values = {"start": 1.0, "end": 0.5, "mean_difference": -0.2, "lo": -0.3, "hi": -0.1,
              "seeds_rising": 1}  # fmt: skip
    text = _effect(SimpleNamespace(values=values, evidence=""))
    assert text.endswith("rises in 1 seed"), text
