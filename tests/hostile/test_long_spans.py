"""A small file spanning many steps: every command that answers windows checks the
per-step work against the budget before it starts (hostile round 7, K7)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from baygo_graph.cli import cli
from baygo_graph.exceptions import BudgetError


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (["analyze"], "the analysis of 1000001 steps x 2 nodes needs about"),
        (["plot", "--out", "{out}"], "the figures of 1000001 steps x 2 nodes ("),
        (["view", "--out", "{out}.html"], "the viewer of 2 nodes x 1,000,001 steps"),
    ],
)
def test_two_contacts_far_apart_are_refused_before_their_windows(tmp_path, monkeypatch,
                                                                 command, words):  # fmt: skip
    path = tmp_path / "span.csv"
    path.write_text("source,target,time\na,b,0\nb,a,1000000\n")
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "100MiB")  # the page: ~111 MiB
    args = [command[0], str(path), *(a.format(out=tmp_path / "o") for a in command[1:])]
    result = CliRunner().invoke(cli, args)  # main() prints it as one `baygo: error:` line
    assert isinstance(result.exception, BudgetError)
    line = str(result.exception)
    assert words in line and "BAYGO_MEMORY_LIMIT=" in line and "\n" not in line
    assert len(line) <= 300
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").glob("*.png"))


def test_a_window_product_that_fills_is_refused_before_it_is_formed(monkeypatch):
    """Everyone hears the hub, then the hub hears everyone: W_1 W_0 of a 3,001-node star
    has ~9 x 10^6 entries from a 6,000-row file (hostile round 7, K17: 10,000 nodes took
    1.7 GB under 1 GiB, then numpy's "Unable to allocate"). The product's largest fill
    is checked first; a small star passes and agrees with the dense product."""
    import numpy as np
    import pandas as pd

    import baygo_graph as bg
    from baygo_graph.analysis import influence_series, window_matrix

    def star(n):
        leaves = [f"n{i}" for i in range(n)]
        return bg.as_series(pd.DataFrame({
            "source": ["hub"] * n + leaves, "target": leaves + ["hub"] * n,
            "time": [1] * n + [0] * n,
        }))  # fmt: skip

    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "64MiB")
    with pytest.raises(BudgetError, match=r"the product of steps 0\.\.1 \(9,00\d,\d+ entries"):
        influence_series(star(3000), window=2, method="product", windows="sliding")
    s = star(30)
    dense = s.weights(1).toarray() @ s.weights(0).toarray()
    np.testing.assert_allclose(window_matrix(s, 0, 2).toarray(), dense, atol=1e-15)
