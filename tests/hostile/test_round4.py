"""The last hostile round's findings (issue 30): each one refused in one line."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from baygo_graph.cli import main
from baygo_graph.io.atomic import check_target
from baygo_graph.io.edgelist import edge_list_series

FRAME = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"], "time": [0, 1], "weight": [1, 2]})


@pytest.mark.parametrize(
    "roles",
    [{"source": "target"}, {"weight": "time"}, {"time": "weight"}, {"source": "time"}],
    ids=str,
)
def test_one_column_never_takes_two_roles(roles):
    with pytest.raises(ValueError, match="is given two roles"):
        edge_list_series(FRAME, **roles)


def test_one_column_with_two_roles_on_the_command_line_is_one_line(tmp_path, capsys):
    p = tmp_path / "roles.csv"
    FRAME.to_csv(p, index=False)
    assert main(["analyze", str(p), "--source", "target"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "two roles" in err, err


@pytest.mark.parametrize(
    "labels", [[0.0, -0.0], [True, False]], ids=["floats 0.0/-0.0", "booleans"]
)
def test_float_and_bool_labels_are_refused_not_merged(labels):
    frame = pd.DataFrame({"source": labels, "target": labels[::-1], "time": [0, 1]})
    with pytest.raises(ValueError, match="labels: node labels must be integers or text"):
        edge_list_series(frame)


def test_a_fifo_or_device_at_an_output_name_is_never_replaced(tmp_path):
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        check_target(fifo)  # overwrite=True (--force) too
    assert not fifo.is_file() and fifo.exists()
    with pytest.raises(OSError, match="not a regular file"):
        check_target(os.devnull)  # checked only: nothing is written


def test_view_with_force_refuses_a_fifo_and_keeps_it(tmp_path, capsys):
    p = tmp_path / "c.csv"
    FRAME.to_csv(p, index=False)
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    assert main(["view", str(p), "--out", str(fifo), "--force"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a regular file" in err, err
    assert fifo.exists() and not fifo.is_file()
