"""The HTML viewer: the embedded data against the run, escaping, and a real headless browser.

The browser tests drive Debian's /usr/bin/chromium through /usr/bin/chromedriver
(Selenium). They are skipped when either is missing, except under ``CI=true``,
where a missing browser is an error.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import shutil
import zlib
from html.parser import HTMLParser
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from baygo_graph import Run, simulate, synthetic_bodyfat
from baygo_graph.analysis import influence_series
from baygo_graph.figures import to_html
from baygo_graph.figures.html import _log_quantised
from baygo_graph.models import LinearRegression

# Debian's packages (apt-get install chromium chromium-driver); overridable for other systems.
CHROMIUM = os.environ.get("BAYGO_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("BAYGO_CHROMEDRIVER", "/usr/bin/chromedriver")
VOID = {"meta", "input", "br", "img", "link", "hr", "col", "area", "base", "source", "wbr"}
HOSTILE = "</script><script>alert(1)</script><!-- \u2028 & \"'"


@pytest.fixture(scope="module")
def run():
    return simulate(
        "baygo", agents=5, steps=8, model=LinearRegression(grid=11), rng=0, data=synthetic_bodyfat()
    )


@pytest.fixture(scope="module")
def page(run, tmp_path_factory):
    return to_html(run, tmp_path_factory.mktemp("html") / "run.html", window=3)


class _Checker(HTMLParser):
    """Balanced tags, and the text of every <script> element."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.scripts = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "script":
            self.scripts.append([dict(attrs), ""])

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "script":
            self.scripts[-1][1] += data


def parse_page(path: Path):
    text = path.read_text(encoding="utf-8")
    checker = _Checker()
    checker.feed(text)
    checker.close()
    return text, checker


def embedded(path: Path) -> dict:
    _, checker = parse_page(path)
    (doc,) = [s for a, s in checker.scripts if a.get("type") == "application/json"]
    return json.loads(doc)


def edge_set(g: nx.DiGraph) -> set:
    return {(u, v) for u, v in g.edges() if u != v}


def unpacked(p: dict) -> np.ndarray:
    """A packed array of the page (zlib + base64, little-endian)."""
    dtype = np.dtype({"uint16": "<u2", "uint32": "<u4", "float32": "<f4"}[p["dtype"]])
    raw = np.frombuffer(zlib.decompress(base64.b64decode(p["zlib"])), np.uint8)
    if p["shuffle"]:  # bytes by significance
        raw = raw.reshape(dtype.itemsize, -1).T.copy()
    a = np.frombuffer(raw.tobytes(), dtype)
    assert len(a) == p["length"]
    return a


def dequantised(p: dict) -> np.ndarray:
    """Log-quantised codes back to values (NaN: undefined)."""
    c = unpacked(p).astype(float)
    v = np.exp(p["lo"] + (c - 2) / 65533 * (p["hi"] - p["lo"]))
    return np.where(c == 0, np.nan, np.where(c == 1, 0.0, v))


def step_edges_of(doc: dict, t: int) -> set:
    """The edges the page derives for step t, decoded here as the page's script does."""
    m = doc["n_agents"]
    if doc["kind"] == "choices":
        row = unpacked(doc["choices"]).reshape(doc["n_steps"], m)[t].astype(int) - 1
        return {(int(c), i) for i, c in enumerate(row) if c >= 0 and c != i}
    ptr, src, dst = (unpacked(doc[k]).astype(int) for k in ("ptr", "src", "dst"))
    s = 0 if doc["fixed"] else t
    return {
        (int(a), int(b))
        for a, b in zip(src[ptr[s] : ptr[s + 1]], dst[ptr[s] : ptr[s + 1]], strict=True)
        if a != b
    }


def test_page_is_balanced_html_with_one_data_element(page):
    text, checker = parse_page(page)
    assert text.startswith("<!DOCTYPE html>")
    assert checker.errors == [] and checker.stack == []
    assert [a.get("type") for a, _ in checker.scripts] == ["application/json", None]
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", text)  # nothing to fetch


def test_embedded_data_matches_run(run, page):
    doc = embedded(page)
    assert doc["format"] == "baygo-viewer" and doc["version"] == 2
    assert doc["n_steps"] == 8 and doc["n_agents"] == 5 and doc["kind"] == "choices"
    choices = unpacked(doc["choices"]).reshape(8, 5).astype(int) - 1
    np.testing.assert_array_equal(choices, run.choices)
    np.testing.assert_allclose(dequantised(doc["mse"]).reshape(5, 8).T, run.mse, rtol=2e-4)
    ref = influence_series(run, window=3, windows="sliding").values
    got = dequantised(doc["influence"]).reshape(5, 8).T
    np.testing.assert_allclose(got, ref, rtol=5e-3, atol=1e-9)
    assert np.isnan(got[:2]).all() and not np.isnan(got[2:]).any()
    for t in range(8):  # the union of the window ending at t, brute force with NetworkX
        union = nx.compose_all([run.graph(s) for s in range(max(0, t - 2), t + 1)])
        assert doc["connected"][t] == nx.is_strongly_connected(union)
        assert step_edges_of(doc, t) == edge_set(run.graph(t))
    win = doc["windows"]  # the aligned windows analyze reports: [0, 3), [3, 6)
    assert (win["start"], win["stop"]) == ([0, 3], [3, 6])
    for a, b, ok, nc in zip(
        win["start"], win["stop"], win["connected"], win["components"], strict=True
    ):
        union = nx.compose_all([run.graph(s) for s in range(a, b)])
        assert ok == nx.is_strongly_connected(union)
        assert nc == nx.number_strongly_connected_components(union)
    assert doc["synthetic"] is True and doc["data_source"] == run.data_source
    assert doc["nodes"] == ["0", "1", "2", "3", "4"] and doc["informative"] == 0
    assert np.all((np.array(doc["layout"]) >= 0) & (np.array(doc["layout"]) <= 1))


def test_log_quantisation_error_is_bounded():
    rng = np.random.default_rng(0)
    a = np.exp(rng.uniform(-20, 3, size=(50, 40)))
    a[0, :3] = [np.nan, 0.0, 1e-15]
    q = _log_quantised(a)
    got = dequantised(q).reshape(a.shape)
    assert np.isnan(got[0, 0]) and got[0, 1] == 0.0 and got[0, 2] == 0.0
    rel = np.abs(got[1:] / a[1:] - 1)
    assert rel.max() <= (q["hi"] - q["lo"]) / 131066 * 1.001


def test_fixed_run_embeds_its_edges_once(tmp_path):
    run = simulate(
        "posm", agents=4, steps=5, model=LinearRegression(grid=9), rng=1, data=synthetic_bodyfat()
    )
    doc = embedded(to_html(run, tmp_path / "posm.html"))
    assert doc["kind"] == "edges" and doc["fixed"] and doc["window"] == 5  # window cut to T
    ptr, src, dst = (unpacked(doc[k]).astype(int) for k in ("ptr", "src", "dst"))
    w = unpacked(doc["weight"])
    assert ptr.tolist() == [0, len(src)]
    g = run.graph(3)
    assert {(int(a), int(b)) for a, b in zip(src, dst, strict=True)} == edge_set(g)
    assert all(
        np.isclose(x, g.edges[a, b]["weight"], rtol=1e-6)
        for a, b, x in zip(src, dst, w, strict=True)
    )


def labelled_steps():
    """Seven digraph snapshots on string labels, weighted (not a run)."""
    rng = np.random.default_rng(3)
    names = ["ann", "bob", "cy", "dee", "eve", "fay"]
    steps = []
    for _ in range(7):
        g = nx.DiGraph()
        g.add_nodes_from(names)
        for _ in range(6):
            a, b = rng.choice(names, 2, replace=False)
            g.add_edge(str(a), str(b), weight=float(rng.uniform(0.5, 2)))
        steps.append(g)
    return steps


def test_list_of_graphs_keeps_labels_and_edges(tmp_path):
    steps = labelled_steps()
    doc = embedded(to_html(steps, tmp_path / "mine.html", window=3))
    assert doc["nodes"] == sorted(steps[0].nodes) and doc["kind"] == "edges" and not doc["fixed"]
    assert doc["mse"] is None and doc["informative"] is None and doc["strategy"] is None
    index = {v: k for k, v in enumerate(doc["nodes"])}
    for t, g in enumerate(steps):
        assert step_edges_of(doc, t) == {(index[u], index[v]) for u, v in edge_set(g)}
    for a, b, ok in zip(
        doc["windows"]["start"], doc["windows"]["stop"], doc["windows"]["connected"], strict=True
    ):
        assert ok == nx.is_strongly_connected(nx.compose_all(steps[a:b]))


def test_layout_is_seeded(run, tmp_path):
    a = embedded(to_html(run, tmp_path / "a.html", layout_seed=1))["layout"]
    b = embedded(to_html(run, tmp_path / "b.html", layout_seed=1))["layout"]
    c = embedded(to_html(run, tmp_path / "c.html", layout_seed=2))["layout"]
    assert a == b and a != c


def test_hostile_strings_cannot_break_out(run, tmp_path):
    config = dict(run.config, data={"source": HOSTILE, "synthetic": False})
    bad = dataclasses.replace(run, strategy=HOSTILE, config=config)
    path = to_html(bad, tmp_path / "bad.html", title=HOSTILE)
    text, checker = parse_page(path)
    assert checker.errors == [] and len(checker.scripts) == 2
    assert len(re.findall(r"</script", text, flags=re.I)) == 2
    assert "<!--" not in text
    assert not any(re.search("[<>&\u2028\u2029]", body) for _, body in checker.scripts[:1])
    doc = embedded(path)
    assert doc["strategy"] == HOSTILE and doc["data_source"] == HOSTILE and doc["title"] == HOSTILE
    assert doc["synthetic"] is False
    g = nx.DiGraph([(HOSTILE, "x"), ("x", HOSTILE)])
    doc = embedded(to_html([g, g], tmp_path / "label.html"))
    assert HOSTILE in doc["nodes"]


def test_bad_arguments(run, tmp_path):
    cen = simulate(
        "cen", agents=3, steps=3, model=LinearRegression(grid=9), rng=0, data=synthetic_bodyfat()
    )
    with pytest.raises(ValueError, match="centralised"):
        to_html(cen, tmp_path / "cen.html")
    with pytest.raises(ValueError, match="window"):
        to_html(run, tmp_path / "x.html", window=0)
    with pytest.raises(TypeError, match="window"):
        to_html(run, tmp_path / "x.html", window="3")
    with pytest.raises(TypeError, match="layout_seed"):
        to_html(run, tmp_path / "x.html", layout_seed=1.5)
    with pytest.raises(TypeError):
        to_html(42, tmp_path / "x.html")
    assert not (tmp_path / "cen.html").exists() and not (tmp_path / "x.html").exists()


def test_from_choices_run_has_no_mse_panel(tmp_path):
    run = Run.from_choices([[1, 0, -1], [2, 2, 1], [1, 2, 0]], informative=2)
    doc = embedded(to_html(run, tmp_path / "c.html"))
    assert doc["informative"] == 2 and doc["mse"] is None  # from_choices holds zero metrics
    got = unpacked(doc["choices"]).reshape(3, 3).astype(int) - 1
    assert got.tolist() == [[1, 0, -1], [2, 2, 1], [1, 2, 0]]


# -- a real browser ------------------------------------------------------------------
@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("the selenium package")
    if missing:
        reason = (
            f"browser test needs {', '.join(missing)} "
            "(apt-get install chromium chromium-driver; pip install selenium)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true: {reason}")
        pytest.skip(reason)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium')}",
        "--window-size=1200,900",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    yield drv
    drv.quit()


def open_page(drv, path: Path) -> None:
    """Load the page and wait until it has unpacked its data (or failed)."""
    from selenium.webdriver.support.ui import WebDriverWait

    drv.get(path.as_uri())
    WebDriverWait(drv, 20).until(
        lambda d: d.execute_script("return baygoViewer.ready || baygoViewer.error !== null")
    )
    assert drv.execute_script("return baygoViewer.error") is None


def view_state(drv) -> dict:
    return drv.execute_script("return baygoViewer.state()")


def drawn_edges(drv) -> set:
    return {(int(s), int(d)) for s, d, _ in drv.execute_script("return baygoViewer.drawnEdges()")}


def severe(drv) -> list:
    return [e for e in drv.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def move_slider(drv, key, times=1):
    slider = drv.find_element("id", "step")
    for _ in range(times):
        slider.send_keys(key)
    return int(slider.get_attribute("value"))


def click_node(drv, i: int) -> None:
    """A real mouse click at node i's position on the canvas."""
    from selenium.webdriver.common.action_chains import ActionChains

    canvas = drv.find_element("id", "graph")
    x, y = drv.execute_script(f"return baygoViewer.screenOf({i})")
    w, h = canvas.size["width"], canvas.size["height"]
    ActionChains(drv).move_to_element_with_offset(canvas, x - w / 2, y - h / 2).click().perform()


def test_browser_slider_draws_each_step(driver, run, page):
    from selenium.webdriver.common.keys import Keys

    open_page(driver, page)
    assert driver.find_element("id", "synthetic").text == "SYNTHETIC DATA"
    doc = embedded(page)
    seen = []
    assert move_slider(driver, Keys.HOME) == 0
    for t in range(run.n_steps):
        if t:
            assert move_slider(driver, Keys.ARROW_RIGHT) == t
        assert view_state(driver)["t"] == t
        edges = drawn_edges(driver)
        assert edges == edge_set(run.graph(t))
        status = driver.find_element("id", "conn").get_attribute("data-connected")
        assert status == str(doc["connected"][t]).lower()
        seen.append(frozenset(edges))
    assert len(set(seen)) > 1  # the slider changed the drawn graph
    assert move_slider(driver, Keys.END) == run.n_steps - 1
    assert severe(driver) == []


def test_browser_window_union_mode(driver, run, page):
    from selenium.webdriver.common.keys import Keys

    open_page(driver, page)
    doc = embedded(page)
    driver.find_element("id", "mode-windows").click()
    slider = driver.find_element("id", "step")
    assert view_state(driver)["mode"] == "windows" and slider.get_attribute("max") == "1"
    for n, (a, b) in enumerate(zip(doc["windows"]["start"], doc["windows"]["stop"], strict=True)):
        if n:
            assert move_slider(driver, Keys.ARROW_RIGHT) == n
        union = nx.compose_all([run.graph(s) for s in range(a, b)])
        assert drawn_edges(driver) == edge_set(union)
        conn = driver.find_element("id", "conn")
        assert conn.get_attribute("data-connected") == str(nx.is_strongly_connected(union)).lower()
        assert f"steps {a}\u2013{b - 1}" in conn.text
        weights = driver.execute_script("return baygoViewer.drawnEdges()")
        for s, d, share in weights:  # width: share of the window's steps holding the edge
            held = sum(run.graph(t).has_edge(s, d) for t in range(a, b))
            assert share == pytest.approx(held / (b - a))
    driver.find_element("id", "mode-steps").click()
    assert view_state(driver)["mode"] == "steps" and view_state(driver)["t"] == 5
    assert severe(driver) == []


def test_browser_zoom_and_pan(driver, run, page):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.wheel_input import ScrollOrigin

    open_page(driver, page)
    canvas = driver.find_element("id", "graph")
    s0 = view_state(driver)
    x0, y0 = driver.execute_script("return baygoViewer.screenOf(2)")
    ActionChains(driver).scroll_from_origin(ScrollOrigin.from_element(canvas), 0, -300).perform()
    s1 = view_state(driver)
    assert s1["scale"] > 1.3 * s0["scale"]  # the wheel zoomed in
    x1, y1 = driver.execute_script("return baygoViewer.screenOf(2)")
    assert (x1, y1) != (x0, y0)
    ActionChains(driver).move_to_element(canvas).click_and_hold().move_by_offset(
        60, -40
    ).release().perform()
    s2 = view_state(driver)
    assert s2["scale"] == s1["scale"]
    assert s2["tx"] - s1["tx"] == pytest.approx(60, abs=2)
    assert s2["ty"] - s1["ty"] == pytest.approx(-40, abs=2)
    x2, y2 = driver.execute_script("return baygoViewer.screenOf(2)")
    assert (x2 - x1, y2 - y1) == (pytest.approx(60, abs=2), pytest.approx(-40, abs=2))
    assert view_state(driver)["agent"] == s0["agent"]  # a drag is not a click
    driver.find_element("id", "zoom-out").click()
    assert view_state(driver)["scale"] == pytest.approx(s2["scale"] / 1.5)
    driver.find_element("id", "zoom-fit").click()
    assert view_state(driver)["scale"] == pytest.approx(s0["scale"])
    assert severe(driver) == []


def test_browser_click_selects_agent(driver, run, page):
    open_page(driver, page)
    line = driver.find_element("id", "mse-line")
    before = line.get_attribute("points")
    assert line.get_attribute("data-agent") == str(run.informative)
    click_node(driver, 3)
    assert view_state(driver)["agent"] == 3
    after = driver.find_element("id", "mse-line").get_attribute("points")
    assert driver.find_element("id", "mse-line").get_attribute("data-agent") == "3"
    assert after != before and len(after.split()) == run.n_steps
    # the curve's heights follow agent 3's MSE (SVG y grows downwards)
    ys = np.array([float(p.split(",")[1]) for p in after.split()])
    slope, intercept = np.polyfit(run.mse[:, 3], ys, 1)
    assert slope < 0 and np.abs(intercept + slope * run.mse[:, 3] - ys).max() < 0.1
    assert "node 3" in driver.find_element("id", "agent-info").text


def test_browser_search_by_label(driver, tmp_path):
    steps = labelled_steps()
    path = to_html(steps, tmp_path / "mine.html", window=3)
    open_page(driver, path)
    labels = driver.execute_script("return baygoViewer.labels")
    assert labels == sorted(steps[0].nodes)
    box = driver.find_element("id", "search")
    box.send_keys("dee\n")
    state = view_state(driver)
    assert state["found"] == state["agent"] == labels.index("dee")
    x, y = driver.execute_script(f"return baygoViewer.screenOf({state['found']})")
    canvas = driver.find_element("id", "graph")
    assert x == pytest.approx(canvas.size["width"] / 2, abs=2)  # centred on the node found
    assert y == pytest.approx(canvas.size["height"] / 2, abs=2)
    assert "found dee" in driver.find_element("id", "search-result").text
    assert "node dee" in driver.find_element("id", "agent-info").text
    box.clear()
    box.send_keys("E\n")  # no exact label: the first label containing it, case-insensitive
    hits = [k for k, label in enumerate(labels) if "e" in label.lower()]
    assert view_state(driver)["found"] == hits[0] and len(hits) > 1
    assert f"first of {len(hits)} labels" in driver.find_element("id", "search-result").text
    box.clear()
    box.send_keys("zed\n")
    assert view_state(driver)["found"] is None
    assert "no node label contains" in driver.find_element("id", "search-result").text
    assert driver.find_element("id", "mse").value_of_css_property("display") == "none"
    assert "no loss curves" in driver.find_element("id", "mse-note").text
    assert severe(driver) == []


def test_browser_play_advances(driver, run, page):
    from selenium.webdriver.support.ui import WebDriverWait

    open_page(driver, page)
    driver.find_element("id", "play").click()
    step = driver.find_element("id", "step")
    WebDriverWait(driver, 20).until(lambda d: int(step.get_attribute("value")) == run.n_steps - 1)
    WebDriverWait(driver, 20).until(lambda d: d.find_element("id", "play").text == "Play")
    assert drawn_edges(driver) == edge_set(run.graph(run.n_steps - 1))


def test_browser_hostile_strings_stay_text(driver, run, tmp_path):
    bad = dataclasses.replace(run, strategy=HOSTILE)
    open_page(driver, to_html(bad, tmp_path / "bad.html", title=HOSTILE))
    assert driver.execute_script("return document.scripts.length") == 2
    assert driver.execute_script("return document.getElementById('title').textContent") == HOSTILE
    assert HOSTILE in driver.execute_script("return document.getElementById('source').textContent")
    assert severe(driver) == []


def test_browser_fixed_graph_is_the_same_each_step(driver, tmp_path):
    from selenium.webdriver.common.keys import Keys

    run = simulate(
        "posm", agents=5, steps=6, model=LinearRegression(grid=9), rng=0, data=synthetic_bodyfat()
    )
    open_page(driver, to_html(run, tmp_path / "posm.html", window=2))
    first = drawn_edges(driver)
    assert first == edge_set(run.graph(0)) and len(first) == 8  # a star: 4 pairs, both ways
    assert move_slider(driver, Keys.END) == 5 and drawn_edges(driver) == first
    g = run.graph(0)
    for s, d, w in driver.execute_script("return baygoViewer.drawnEdges()"):
        assert w == pytest.approx(g.edges[s, d]["weight"], rel=1e-6)


def test_browser_timeline_click_and_play_over_windows(driver, run, page):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait

    open_page(driver, page)
    strip = driver.find_element("id", "timeline")
    width = strip.size["width"]
    # a click at 70% of the strip's width selects the step there (steps mode)
    ActionChains(driver).move_to_element_with_offset(strip, 0.2 * width, 0).click().perform()
    assert view_state(driver)["t"] == int(0.7 * run.n_steps)
    driver.find_element("id", "mode-windows").click()
    ActionChains(driver).move_to_element_with_offset(strip, -0.45 * width, 0).click().perform()
    assert view_state(driver)["window"] == 0  # step 0: the first aligned window
    driver.find_element("id", "play").click()
    step = driver.find_element("id", "step")
    WebDriverWait(driver, 20).until(lambda d: step.get_attribute("value") == "1")
    WebDriverWait(driver, 20).until(lambda d: d.find_element("id", "play").text == "Play")
    assert view_state(driver)["window"] == 1 and view_state(driver)["shownStep"] == 5


def test_browser_rings_nodes_outside_the_largest_strong_component(driver, tmp_path):
    """Brute force with NetworkX on every aligned window of a sparse labelled series."""
    from selenium.webdriver.common.keys import Keys

    steps = labelled_steps()
    path = to_html(steps, tmp_path / "mine.html", window=2)
    doc = embedded(path)
    open_page(driver, path)
    driver.find_element("id", "mode-windows").click()
    index = {v: k for k, v in enumerate(doc["nodes"])}
    checked = 0
    for n, (a, b) in enumerate(zip(doc["windows"]["start"], doc["windows"]["stop"], strict=True)):
        if n:
            assert move_slider(driver, Keys.ARROW_RIGHT) == n
        union = nx.compose_all(steps[a:b])
        outside = driver.execute_script("return baygoViewer.outside()")
        if nx.is_strongly_connected(union):
            assert outside is None
            continue
        comps = [sorted(index[v] for v in c) for c in nx.strongly_connected_components(union)]
        big = min(comps, key=lambda c: (-len(c), c[0]))
        assert outside == sorted(set(range(len(index))) - set(big))
        assert driver.execute_script("return baygoViewer.components()") == len(comps)
        assert "ringed in purple" in driver.find_element("id", "conn").text
        checked += 1
    assert checked >= 1
    assert severe(driver) == []


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's script")
@pytest.mark.parametrize("bin_", ["250us", "1500us", "100ns", "1ms", "6h"])
def test_the_page_says_each_steps_time_as_the_python_axis(tmp_path, bin_):
    """The page computed step times on a JavaScript Date (whole milliseconds): with
    `--bin 250us` every step read 08:00 (hostile18 W10; then the page said steps only).
    The written page's own script, run on its own data, names every step and every
    aligned window as TimeAxis.step_label and TimeAxis.span do."""
    import json
    import re
    import subprocess

    import pandas as pd

    import baygo_graph as bg
    from baygo_graph.figures import to_html

    width = pd.Timedelta(bin_)
    start = pd.Timestamp("2024-05-01T08:00:00.000000300+02:00")  # a start below the microsecond
    times = [(start + width * f).isoformat() for f in (0, 1.2, 2.5, 3.7, 5.1)]
    edges = tmp_path / "us.csv"
    edges.write_text("source,target,time\n" + "".join(
        f"{a},{b},{t}\n" for (a, b), t in zip(["ab", "ba", "ab", "bc", "cb"], times, strict=True)
    ))  # fmt: skip
    series = bg.as_series(edges, bin=bin_)
    page = to_html(series, tmp_path / "v.html", window=2).read_text()
    data = re.search(r'<script type="application/json" id="baygo-data">(.*?)</script>', page, re.S)
    doc = json.loads(data.group(1))
    assert doc["time_axis"]["text"] and doc["time"] is not None
    script = page[page.index("  // -- time axis") : page.index("  // -- end of the time axis --")]
    program = script + (
        f"\nvar D = {json.dumps(doc)};\nvar out = [];\n"
        "for (var k = 0; k < D.n_steps; k++) { out.push(timeLabel(D.time, k)); }\n"
        "for (var n = 0; n < D.windows.start.length; n++) {\n"
        "  out.push(timeSpan(D.time, D.windows.start[n], D.windows.stop[n] - 1)); }\n"
        "console.log(JSON.stringify(out));"
    )
    done = subprocess.run(["node"], input=program, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    ax = series.time_axis
    want = [ax.step_label(k) for k in range(series.n_steps)] + [
        ax.span(a, b - 1)
        for a, b in zip(doc["windows"]["start"], doc["windows"]["stop"], strict=True)
    ]
    assert json.loads(done.stdout) == want
    assert len(set(want[: series.n_steps])) == series.n_steps  # every step its own time
