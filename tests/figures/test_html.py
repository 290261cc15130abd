"""The HTML viewer: the embedded data against the run, escaping, and a real headless browser.

The browser tests drive Debian's /usr/bin/chromium through /usr/bin/chromedriver
(Selenium). They are skipped when either is missing, except under ``CI=true``,
where a missing browser is an error.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from baygo_graph import Run, simulate, synthetic_bodyfat
from baygo_graph.analysis import influence_series
from baygo_graph.figures import to_html

# Debian's packages (apt-get install chromium chromium-driver); overridable for other systems.
CHROMIUM = os.environ.get("BAYGO_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("BAYGO_CHROMEDRIVER", "/usr/bin/chromedriver")
VOID = {"meta", "input", "br", "img", "link", "hr", "col", "area", "base", "source", "wbr"}
HOSTILE = "</script><script>alert(1)</script><!-- \u2028 & \"'"


@pytest.fixture(scope="module")
def run():
    return simulate("baygo", agents=5, steps=8, grid=11, rng=0, data=synthetic_bodyfat())


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


def test_page_is_balanced_html_with_one_data_element(page):
    text, checker = parse_page(page)
    assert text.startswith("<!DOCTYPE html>")
    assert checker.errors == [] and checker.stack == []
    assert [a.get("type") for a, _ in checker.scripts] == ["application/json", None]
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", text)  # nothing to fetch


def test_embedded_data_matches_run(run, page):
    doc = embedded(page)
    assert doc["format"] == "baygo-viewer" and doc["n_steps"] == 8 and doc["n_agents"] == 5
    assert doc["choices"] == run.choices.tolist() and doc["edges"] is None
    np.testing.assert_allclose(np.array(doc["mse"]), run.mse, rtol=1e-4)
    ref = influence_series(run, window=3, windows="sliding")
    got = np.array([[np.nan] * 5 if r is None or None in r else r for r in doc["influence"]])
    np.testing.assert_allclose(got, ref, rtol=5e-3, atol=1e-6)
    assert np.isnan(got[:2]).all()
    for t in range(8):  # the union of the window ending at t, brute force with NetworkX
        union = nx.compose_all([run.graph(s) for s in range(max(0, t - 2), t + 1)])
        assert doc["connected"][t] == nx.is_strongly_connected(union)
    for t in range(8):  # the edges the page derives from the choices are run.graph(t)'s
        row = doc["choices"][t]
        assert {(c, i) for i, c in enumerate(row) if c >= 0 and c != i} == edge_set(run.graph(t))
    assert doc["synthetic"] is True and doc["data_source"] == run.data_source
    assert np.all((np.array(doc["layout"]) >= 0) & (np.array(doc["layout"]) <= 1))


def test_fixed_run_embeds_its_edges_once(tmp_path):
    run = simulate("posm", agents=4, steps=5, grid=9, rng=1, data=synthetic_bodyfat())
    doc = embedded(to_html(run, tmp_path / "posm.html"))
    assert doc["choices"] is None and doc["window"] == 5  # window cut to T
    got = {(s, d): w for s, d, w in doc["edges"]}
    g = run.graph(3)
    assert set(got) == edge_set(g)
    assert all(np.isclose(w, g.edges[s, d]["weight"]) for (s, d), w in got.items())


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


def test_bad_arguments(run, tmp_path):
    cen = simulate("cen", agents=3, steps=3, grid=9, rng=0, data=synthetic_bodyfat())
    with pytest.raises(ValueError, match="centralised"):
        to_html(cen, tmp_path / "cen.html")
    with pytest.raises(ValueError, match="window"):
        to_html(run, tmp_path / "x.html", window=0)
    with pytest.raises(TypeError, match="window"):
        to_html(run, tmp_path / "x.html", window="3")
    with pytest.raises(TypeError, match="run"):
        to_html([run.graph(0)], tmp_path / "x.html")
    assert not (tmp_path / "cen.html").exists() and not (tmp_path / "x.html").exists()


def test_from_choices_run(tmp_path):
    run = Run.from_choices([[1, 0, -1], [2, 2, 1], [1, 2, 0]], informative=2)
    doc = embedded(to_html(run, tmp_path / "c.html"))
    assert doc["informative"] == 2 and doc["choices"] == [[1, 0, -1], [2, 2, 1], [1, 2, 0]]


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


def drawn_edges(drv) -> set:
    paths = drv.find_elements("css selector", "#edges path.edge")
    return {(int(p.get_attribute("data-src")), int(p.get_attribute("data-dst"))) for p in paths}


def move_slider(drv, key, times=1):
    slider = drv.find_element("id", "step")
    for _ in range(times):
        slider.send_keys(key)
    return int(slider.get_attribute("value"))


def test_browser_page(driver, run, page):
    from selenium.webdriver.common.keys import Keys

    driver.get(page.as_uri())
    assert driver.find_element("id", "synthetic").text == "SYNTHETIC DATA"
    severe = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert severe == []
    doc = embedded(page)
    seen = []
    assert move_slider(driver, Keys.HOME) == 0
    for t in range(run.n_steps):
        if t:
            assert move_slider(driver, Keys.ARROW_RIGHT) == t
        edges = drawn_edges(driver)
        assert edges == edge_set(run.graph(t))
        assert len(driver.find_elements("css selector", "#nodes .node")) == run.n_agents
        status = driver.find_element("id", "conn").get_attribute("data-connected")
        assert status == str(doc["connected"][t]).lower()
        seen.append(frozenset(edges))
    assert len(set(seen)) > 1  # the slider changed the drawn graph
    assert driver.find_elements("css selector", '#nodes [data-agent="0"] polygon')  # the star
    assert move_slider(driver, Keys.END) == run.n_steps - 1
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


def test_browser_click_selects_agent(driver, run, page):
    driver.get(page.as_uri())
    line = driver.find_element("id", "mse-line")
    before = line.get_attribute("points")
    assert line.get_attribute("data-agent") == str(run.informative)
    driver.find_element("css selector", '#nodes [data-agent="3"] circle').click()
    after = driver.find_element("id", "mse-line").get_attribute("points")
    assert driver.find_element("id", "mse-line").get_attribute("data-agent") == "3"
    assert after != before and len(after.split()) == run.n_steps
    # the curve's heights follow agent 3's MSE (SVG y grows downwards)
    ys = np.array([float(p.split(",")[1]) for p in after.split()])
    slope, intercept = np.polyfit(run.mse[:, 3], ys, 1)
    assert slope < 0 and np.abs(intercept + slope * run.mse[:, 3] - ys).max() < 0.1
    assert "agent 3" in driver.find_element("id", "agent-info").text


def test_browser_play_advances(driver, run, page):
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(page.as_uri())
    driver.find_element("id", "play").click()
    step = driver.find_element("id", "step")
    WebDriverWait(driver, 20).until(lambda d: int(step.get_attribute("value")) == run.n_steps - 1)
    WebDriverWait(driver, 20).until(lambda d: d.find_element("id", "play").text == "Play")
    assert drawn_edges(driver) == edge_set(run.graph(run.n_steps - 1))


def test_browser_hostile_strings_stay_text(driver, run, tmp_path):
    bad = dataclasses.replace(run, strategy=HOSTILE)
    driver.get(to_html(bad, tmp_path / "bad.html", title=HOSTILE).as_uri())
    assert driver.execute_script("return document.scripts.length") == 2
    assert driver.execute_script("return document.getElementById('title').textContent") == HOSTILE
    assert HOSTILE in driver.execute_script("return document.getElementById('source').textContent")
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


def test_browser_fixed_graph_is_the_same_each_step(driver, tmp_path):
    from selenium.webdriver.common.keys import Keys

    run = simulate("posm", agents=5, steps=6, grid=9, rng=0, data=synthetic_bodyfat())
    driver.get(to_html(run, tmp_path / "posm.html", window=2).as_uri())
    first = drawn_edges(driver)
    assert first == edge_set(run.graph(0)) and len(first) == 8  # a star: 4 pairs, both ways
    assert move_slider(driver, Keys.END) == 5 and drawn_edges(driver) == first
    g = run.graph(0)
    pairs = {  # (weight, drawn width) of every edge: width grows with the weight
        (
            g.edges[int(p.get_attribute("data-src")), int(p.get_attribute("data-dst"))]["weight"],
            float(p.get_attribute("stroke-width")),
        )
        for p in driver.find_elements("css selector", "#edges path.edge")
    }
    assert len(pairs) == 2  # leaves hear the centre with 0.5, the centre hears each with 0.125
    (w1, s1), (w2, s2) = sorted(pairs)
    assert w1 < w2 and s1 < s2
