"""Every teller of one series read from dated contacts says its time axis in the same
words (hostile18 W6): ``baygo analyze`` text, ``--json`` and the files of ``--out``, the
viewer page (its slider's JavaScript against :class:`~baygo_graph.io.times.TimeAxis`)
and the GEXF export."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from importlib.resources import files

import pandas as pd
import pytest
from click.testing import CliRunner

import baygo_graph as bg
from baygo_graph.cli import cli
from baygo_graph.io.times import binned_times

DATES = (
    "source,target,time\n"
    "a,b,2024-05-01T08:00+02:00\nb,a,2024-05-01T09:00+02:00\nb,c,2024-05-02T10:00+02:00\n"
    "c,a,2024-05-03T10:00+02:00\na,c,2024-05-06T10:00+02:00\nc,b,2024-05-06T11:00+02:00\n"
)
AXIS = "1 step = 1D from 2024-05-01T00:00+02:00 (origin: first)"


@pytest.fixture
def dates(tmp_path):
    p = tmp_path / "dates.csv"
    p.write_text(DATES)
    return p


def _analyze(*args) -> str:
    result = CliRunner().invoke(cli, ["analyze", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


def test_analyze_text_and_json_say_the_same_times(dates, tmp_path):
    text = _analyze(dates, "--bin", "1D", "--window", "2", "--out", tmp_path / "A")
    doc = json.loads(_analyze(dates, "--bin", "1D", "--window", "2", "--json"))
    lines = text.splitlines()
    assert lines[1] == f"time axis: {AXIS}"  # right under the series' own line
    assert doc["time_axis"]["text"] == AXIS and doc["time_axis"]["bin"] == "1D"
    assert doc["time_axis"]["start"] == "2024-05-01T00:00+02:00"
    for kind in ("aligned", "sliding"):
        w = doc["windows"][kind]
        assert w["first_failure_times"] == "2024-05-01 to 2024-05-02"
        a, b = w["first_failure_steps"]
        assert f"first failure window 0 (steps {a}..{b}, {w['first_failure_times']})" in text
        cov = doc["smallest_b_coverage"][kind]
        assert cov["covered_times"] is not None and f"({cov['covered_times']})" in text
    tail = doc["smallest_b_coverage"]["aligned"]
    assert tail["tail_times"] == "2024-05-05 to 2024-05-06" and f"({tail['tail_times']})" in text
    # the files of --out: the same report
    report = json.loads((tmp_path / "A" / "report.json").read_text())
    assert (
        report["time_axis"] == doc["time_axis"] and AXIS in (tmp_path / "A/report.txt").read_text()
    )


def test_a_run_has_no_time_axis_and_says_none(tmp_path):
    run = bg.Run.from_choices([[1, 0, 0], [2, 2, 1]])
    path = bg.write_series(run, tmp_path / "r.json")
    doc = json.loads(_analyze(path, "--window", "1", "--json"))
    assert doc["time_axis"] is None
    assert all(w["first_failure_times"] is None for w in doc["windows"].values())
    assert "time axis" not in _analyze(path, "--window", "1")


def test_integer_times_keep_their_first_value_in_the_report(tmp_path):
    p = tmp_path / "CollegeMsg.txt"
    p.write_text("1 2 1082040961\n2 1 1082045000\n2 3 1082300000\n")
    text = _analyze(p, "--bin", "86400", "--window", "1")
    assert "time axis: 1 step = 86400 from time 1082040961 (origin: first)" in text
    assert "(steps 0..0, times 1082040961 to 1082127360)" in text


def test_gexf_export_states_the_axis_and_keeps_integer_spells(dates, tmp_path):
    gexf = bg.write_series(bg.as_series(dates, bin="1D"), tmp_path / "d.gexf")
    text = gexf.read_text()
    assert f"(time = step; {AXIS})" in text  # the description Gephi keeps with the file
    assert 'timeformat="long" start="0" end="5"' in text  # spells stay steps: exact
    assert bg.read_series(gexf).time_axis.describe() == AXIS


def test_viewer_page_embeds_the_axis(dates, tmp_path):
    from baygo_graph.figures import to_html

    page = to_html(bg.as_series(dates, bin="1D"), tmp_path / "v.html").read_text()
    data = re.search(r'<script type="application/json" id="baygo-data">(.*?)</script>', page, re.S)
    doc = json.loads(data.group(1))
    assert doc["time_axis"]["text"] == AXIS
    assert doc["time"] == {"kind": "days", "start_ms": 1714521600000.0, "width_ms": 86400000.0,
                           "suffix": "+02:00"}  # fmt: skip


def _axes():
    out = []
    for values, kw in [
        (["2024-05-01T08:00+02:00", "2024-05-06T11:00+02:00"], {"bin": "1D"}),
        (["2024-05-01T08:00+02:00", "2024-05-06T11:00+02:00"], {"bin": "6h"}),
        (["2024-01-31", "2024-05-01"], {"bin": "MS"}),
        (["2024-01-31", "2024-05-01"], {"bin": "2MS", "origin": "epoch"}),
        (["2024-01-31", "2024-05-01"], {"bin": "W-WED"}),
        (["2024-01-31", "2024-05-01"], {"bin": "YS"}),
        (["2024-01-31 10:00:30", "2024-05-01"], {"bin": "90s"}),
        ([1082040961, 1082155839], {"bin": 86400, "time_format": "unix"}),
        ([1082040961, 1082155839], {"bin": "7h", "time_format": "unix"}),
        ([2**62, 2**62 + 5], {"bin": 3}),
        (["0001-01-01", "9999-12-31"], {"bin": "7W", "origin": "epoch"}),  # year 0
        (["0050-03-05", "0051-01-01"], {"bin": "MS"}),  # years below 100
        (["2262-04-10T00:00", "2262-04-11T23:00"], {"bin": "1h"}),  # past ns timestamps
        # below the millisecond (hostile18 W10: a JavaScript Date said every step 08:00)
        (
            ["2024-05-01T08:00:00.000000+02:00", "2024-05-01T08:00:00.000600+02:00"],
            {"bin": "250us"},
        ),  # fmt: skip
        (["2024-05-01T08:00:00.000300Z", "2024-05-01T08:00:00.009Z"], {"bin": "1500us"}),
        (["2024-05-01T08:00:00.000000100", "2024-05-01T08:00:00.000001"], {"bin": "100ns"}),
        (["1969-12-31T23:59:59.999999", "1970-01-01T00:00:00.5"], {"bin": "7us"}),  # < 1970
        ([1714550400000000250, 1714550400000090000], {"bin": "333ns", "time_format": "unix-ns"}),
        ([1714550400000001, 1714550400090000], {"bin": "1us", "time_format": "unix-us"}),
        # hostile21 Z6: a start's fraction of a second was dropped (every step 0.5 s early)
        (["2024-05-03T10:00:00.5", "2024-05-03T10:00:02"], {"bin": "250ms"}),
        (["1900-01-01T00:00:00.75", "1900-01-01T00:00:09"], {"bin": "1500ms"}),
    ]:
        out.append(binned_times(pd.Series(values), **kw)[1])
    paris = pd.Series(pd.to_datetime(["2024-03-30 10:00", "2024-04-01 00:30"]))
    paris = paris.dt.tz_localize("Europe/Paris")
    out += [binned_times(paris, bin=b)[1] for b in ("1D", "5h")]
    return out


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's script")
def test_viewer_slider_text_equals_the_python_axis():
    page = (files("baygo_graph.figures") / "viewer.html").read_text()
    script = page[page.index("  // -- time axis") : page.index("  // -- end of the time axis --")]
    asked = [
        {"r": ax.viewer_rule(), "k": k, "a": a, "b": b, "want": [ax.step_label(k), ax.span(a, b)]}
        for ax in _axes()
        for k, (a, b) in [(0, (0, 0)), (3, (2, 5)), (40, (13, 13)), (400, (7, 100))]
    ]
    assert all(q["r"] is not None for q in asked)
    program = (
        script + "\nvar Q = " + json.dumps(asked) + ";\nconsole.log(JSON.stringify(Q.map("
        "function (q) { return [timeLabel(q.r, q.k), timeSpan(q.r, q.a, q.b)]; })));"
    )
    done = subprocess.run(["node", "-e", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert [q["want"] for q in asked] == got


def test_plot_titles_name_the_steps_times(dates):
    import matplotlib.pyplot as plt

    from baygo_graph.cli.figures import _series_figures

    figs = _series_figures(bg.as_series(dates, bin="1D"), window=2)
    titles = {k: f.axes[0].get_title() for k, f in figs.items()}
    plt.close("all")
    assert titles["graph_last_step"].startswith("step 5, 2024-05-06 (")
    assert titles["graph_union"].startswith("union of steps 4..5, 2024-05-05 to 2024-05-06 (")


@pytest.mark.parametrize("second", ["dates.graphml", "run0"])
def test_a_dated_series_never_enters_the_many_run_table(dates, tmp_path, second):
    # Decision (issue 30): the many-run table (analyze A B, table.csv, summary.csv, --json)
    # takes saved runs only, simulations whose steps have no clock; a dated series goes
    # through the one-series report, which says its dates. Given with another input it
    # is refused in one line naming it, never tabled without its dates.
    series = bg.as_series(dates, bin="1D")
    bg.write_series(series, tmp_path / "dates.json")
    bg.write_series(series, tmp_path / "dates.graphml")
    model, data = bg.models.LinearRegression(grid=9), bg.synthetic_bodyfat(40)
    for seed in (0, 1):
        run = bg.simulate("baygo", agents=3, steps=5, model=model, rng=seed, data=data)
        run.save(tmp_path / f"run{seed}")
    run = tmp_path / "run0"
    result = CliRunner().invoke(cli, ["analyze", str(tmp_path / "dates.json"),
                                      str(tmp_path / second)])  # fmt: skip
    assert result.exit_code == 2
    line = result.output.strip().splitlines()[-1]
    assert f"{tmp_path / 'dates.json'} is a JSON series; analyze one series at a time" in line
    alone = json.loads(_analyze(tmp_path / "dates.json", "--json"))
    assert alone["time_axis"]["text"] == AXIS  # alone, its dates are said
    many = json.loads(_analyze(run, tmp_path / "run1", "--json"))  # runs: steps, no clock
    assert not any("time" in k for row in many["runs"] for k in row)
