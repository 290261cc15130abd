"""Every teller of a run's loss names it as the run does (``run.loss_name``): a logistic
run's log-loss is never called an MSE (hostile21 Z12): the agents' figure, the
animation's panel, the viewer page, a comparison table's figures, and the synthetic-data
line of a saved run, which names the model's own data."""

from __future__ import annotations

import json
import re

import matplotlib.pyplot as plt
import pytest
from click.testing import CliRunner

import baygo_graph as bg
from baygo_graph.cli import cli
from baygo_graph.figures import animate_run, plot_agents_mse, plot_mse, to_html

#: model -> (run.loss_name, its word, its axis label)
LOSSES = {
    "linear": ("mse", "MSE", "test MSE (standardised units)"),
    "logistic": ("log_loss", "log-loss", "test log-loss"),
    "mean": ("sq_error", "squared error", "test squared error"),
}


@pytest.fixture(scope="module", params=list(LOSSES))
def saved(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    result = CliRunner().invoke(cli, ["run", "--model", request.param, "--agents", "4", "--steps",
                                      "5", "--grid", "9", "--out", str(folder / "r")])  # fmt: skip
    assert result.exit_code == 0, result.output
    return request.param, folder


def test_every_teller_names_the_runs_loss(saved):
    model, folder = saved
    name, word, axis = LOSSES[model]
    run = bg.Run.load(folder / "r")
    assert run.loss_name == name
    ax = plot_agents_mse(run)
    assert ax.get_ylabel() == axis
    assert ax.get_title().startswith(f"Every agent's test {word} under ")
    plt.close(ax.figure)
    anim = animate_run(run, panel="mse")
    panel = anim.figure.axes[1]
    assert panel.get_ylabel() == axis and panel.get_title() == f"every agent's test {word}"
    plt.close(anim.figure)
    page = to_html(run, folder / "v.html").read_text()
    data = re.search(r'<script type="application/json" id="baygo-data">(.*?)</script>', page, re.S)
    doc = json.loads(data.group(1))
    assert (doc["loss"], doc["loss_axis"]) == (word, axis)
    for said in ("draw its MSE curve", '": MSE "', '"test MSE (standardised units)"'):
        # the script's words come from the data's "loss" and "loss_axis"
        assert said not in page.replace(data.group(1), "")


def test_a_saved_runs_synthetic_line_names_its_own_data(saved):
    model, folder = saved
    out = CliRunner().invoke(cli, ["analyze", str(folder / "r")]).output
    first = out.splitlines()[0]
    if model == "linear":  # the bodyfat data ($BAYGO_BODYFAT) or its stand-in
        assert not bg.Run.load(folder / "r").synthetic or "bodyfat data" in first
    else:
        assert f"made from the {model} model's synthetic data: synthetic" in first
        assert "bodyfat" not in first


def test_a_comparison_tables_figures_name_its_loss():
    from baygo_graph.experiments import compare

    runs = compare(strategies=["baygo", "nocol"], seeds=2, steps=4, agents=4,
                                  model="logistic")  # fmt: skip
    df = runs if not hasattr(runs, "table") else runs.table
    assert df.attrs["loss"] == "log_loss"
    ax = plot_mse(df)
    assert ax.get_ylabel() == "test log-loss"
    plt.close(ax.figure)


def test_a_strangers_long_loss_and_model_names_are_said_shortened(saved):
    # hostile21 Z17 (a regression of Z12's fix, before merge): a run file's 5,000-character
    # loss name drew a 55,449-pixel-wide figure (12 GB); a 3,000-character model name gave
    # a 3,170-character NOTE line
    from baygo_graph.cli._common import saved_banner

    model, folder = saved
    run = bg.Run.load(folder / "r")
    run.config["loss"] = "L" * 5000 + "$x$"
    run.config["model"] = "M" * 3000 + "\x1b[31m"
    run.config["data"] = {**run.config["data"], "synthetic": True, "source": "s" * 3000}
    ax = plot_agents_mse(run)
    assert len(ax.get_ylabel()) <= 50 and len(ax.get_title()) <= 120
    assert ax.figure.get_size_inches().tolist() == [8.0, 4.2]
    plt.close(ax.figure)
    line = saved_banner(run)
    assert len(line) <= 300 and "\x1b" not in line and "more characters" in line
