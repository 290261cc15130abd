"""The HTML viewer at real sizes: page size and time to open in headless Chromium.

For each size, a BayGo run on synthetic data sized to the agents
(``_common.bench_data``) and, as a worst case for compression, a series whose
agents each listen to a uniformly random other agent every step
(``Run.from_choices``; no MSE curves). Each page is built by
:func:`baygo_graph.figures.to_html` (build time printed), then opened
``--repeat`` times in Debian's headless Chromium through chromedriver: the open
time is the page's own ``performance.now()`` when it has unpacked its data and
drawn the first step (milliseconds since navigation start), so it includes
parsing the HTML, inflating the arrays and the first draw, not the driver's
overhead. The first open of each page is a cold one.

    python benchmarks/bench_viewer.py [--sizes 200x300,1000x1000] [--repeat 3] [--keep DIR]

With ``--keep DIR`` the simulated runs are saved there and reused by the next
call (simulating 1,000 agents x 1,000 steps takes minutes).

Targets (issue 20): at 1,000 nodes x 1,000 steps, page < ~5 MB and open < 2 s.
The machine is shared (2 cores, other jobs): compare the rows side by side.

``--scale`` times ``baygo view`` itself (a fresh process: start-up, reading the edge
list, layout, influence, writing the page) on users' edge lists at scale instead:
a PubMed-like citation series (19,717 nodes, 44 yearly steps, 44,338 edges), a
2 x 10^4-node series (100 steps, 2 x 10^5 edges) and 10^5 nodes, each with the
default layout (``auto``: coarse above 1,000 nodes) and ``--layout none``; then the
layouts side by side, alternating, on one 2,000-node graph (spring, the old default
for every size, against coarse). Target (issue 31): a 2 x 10^4-node series in
<= 60 s.

    python benchmarks/bench_viewer.py --scale [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import bench_data, load_average, machine_lines, table  # noqa: E402

from baygo_graph.models import LinearRegression

CHROMIUM = os.environ.get("BAYGO_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("BAYGO_CHROMEDRIVER", "/usr/bin/chromedriver")


def browser(profile: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--window-size=1300,1000",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


READY = "return !!(window.baygoViewer && (baygoViewer.ready || baygoViewer.error))"


def open_ms(drv, page: Path) -> float:
    """Milliseconds from navigation start until the viewer is ready (data unpacked, drawn)."""
    from selenium.webdriver.support.ui import WebDriverWait

    drv.get("about:blank")
    drv.get(page.as_uri())
    WebDriverWait(drv, 60, poll_frequency=0.02).until(lambda d: d.execute_script(READY))
    error = drv.execute_script("return baygoViewer.error")
    if error:
        raise RuntimeError(f"{page}: {error}")
    return float(drv.execute_script("return baygoViewer.readyAt"))


def sources(agents: int, steps: int, folder: Path):
    from baygo_graph import Run

    saved = folder / f"run_{agents}x{steps}"
    if saved.exists():  # a run simulated by an earlier call with the same --keep
        yield "BayGo run", Run.load(saved), 0.0
    else:
        yield from _simulated(agents, steps, saved)
    rng = np.random.default_rng(0)
    choices = rng.integers(0, agents - 1, size=(steps, agents))
    yield "random listeners", Run.from_choices(choices + (choices >= np.arange(agents))), 0.0


def _simulated(agents: int, steps: int, saved: Path):
    from baygo_graph import simulate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        data = bench_data(agents)
        kw = {"model": LinearRegression(grid=21), "rng": 0, "data": data, "progress": False}
        run = simulate("baygo", agents=agents, steps=steps, **kw)
    elapsed = time.perf_counter() - t0
    run.save(saved)
    yield "BayGo run", run, elapsed


def edge_list(path: Path, *, nodes: int, steps: int, edges: int, seed: int = 0) -> Path:
    """A citation-like edge list: each row cites an older, popular node (rank^3 draw)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    time_ = np.sort(rng.integers(0, steps, edges))
    src = rng.integers(0, nodes, edges)
    dst = (nodes * rng.random(edges) ** 3).astype(np.int64)
    dst = np.where(dst == src, (dst + 1) % nodes, dst)
    pd.DataFrame({"source": src, "target": dst, "time": time_}).to_csv(path, index=False)
    return path


def view_seconds(source: Path, page: Path, *extra: str) -> float:
    """Wall time of ``baygo view SOURCE --out PAGE --force EXTRA...`` in a fresh process."""
    import subprocess

    code = "import sys; from baygo_graph.cli import main; sys.exit(main(sys.argv[1:]))"
    argv = [sys.executable, "-c", code, "view", str(source), "--out", str(page), "--force"]
    t0 = time.perf_counter()
    subprocess.run([*argv, *extra], check=True, capture_output=True)
    return time.perf_counter() - t0


def scale(args) -> str:
    import scipy.sparse as sp

    from baygo_graph.figures._graph import graph_layout

    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench_viewer_scale_"))
    folder.mkdir(parents=True, exist_ok=True)
    load_before = load_average()
    sizes = [("PubMed-like", 19_717, 44, 44_338), ("2 x 10^4 nodes", 20_000, 100, 200_000),
             ("10^5 nodes", 100_000, 50, 500_000)]  # fmt: skip
    rows = []
    for name, nodes, steps, edges in sizes:
        source = edge_list(folder / f"{nodes}.csv", nodes=nodes, steps=steps, edges=edges)
        for layout in ("auto", "none"):
            times = [view_seconds(source, folder / f"{nodes}_{layout}.html", "--layout", layout)
                     for _ in range(args.repeat)]  # fmt: skip
            page = folder / f"{nodes}_{layout}.html"
            rows.append([name, f"{nodes:,} x {steps}", f"{edges:,}", layout,
                         f"{float(np.median(times)):.1f} s", f"{min(times):.1f} s",
                         f"{page.stat().st_size / 1e6:.1f} MB"])  # fmt: skip
            print(" | ".join(rows[-1]), flush=True)
    # the layouts alone, side by side on one graph, alternating A/B
    rng = np.random.default_rng(1)
    n = 2000
    a = sp.coo_array((np.ones(4 * n), (rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n))),
                     shape=(n, n)).tocsr()  # fmt: skip
    a = a.maximum(a.T)
    spring, coarse = [], []
    for _ in range(args.repeat):
        for method, into in (("spring", spring), ("coarse", coarse)):
            t0 = time.perf_counter()
            graph_layout(a, method=method)
            into.append(time.perf_counter() - t0)
    head = ["series", "nodes x steps", "edges", "--layout", "baygo view, median", "best", "page"]
    ratio = float(np.median(spring)) / float(np.median(coarse))
    out = "\n".join(
        [
            *machine_lines(),
            f"1-minute load average: {load_before} before, {load_average()} after",
            f"files in {folder}",
            "",
            table(head, rows),
            "",
            f"baygo view: wall time of a fresh process ({args.repeat} runs each), start-up and "
            "reading the CSV included; synthetic citation-like edge lists (not real data)",
            f"layout alone, {n:,} nodes, {a.nnz // 2:,} edges, alternating: spring "
            f"{np.median(spring):.2f} s, coarse {np.median(coarse):.2f} s: spring / coarse = "
            f"{ratio:.1f}x",
        ]
    )
    print(out)
    return out


def main(argv=None) -> str:
    from baygo_graph.figures import to_html

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="200x300,1000x1000", help="AGENTSxSTEPS,...")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument(
        "--keep", type=Path, default=None, help="folder to keep the pages and simulated runs in"
    )
    p.add_argument("--scale", action="store_true", help="time baygo view on large edge lists")
    args = p.parse_args(argv)
    if args.scale:
        return scale(args)
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench_viewer_"))
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    load_before = load_average()
    drv = browser(Path(tempfile.mkdtemp(prefix="bench_viewer_chromium_")))
    try:
        for agents, steps in sizes:
            for kind, source, sim_s in sources(agents, steps, folder):
                page = folder / f"{kind.split()[0].lower()}_{agents}x{steps}.html"
                t0 = time.perf_counter()
                to_html(source, page, window=10, overwrite=True)  # --keep: again
                build = time.perf_counter() - t0
                times = [open_ms(drv, page) for _ in range(args.repeat)]
                rows.append(
                    [
                        f"{agents} x {steps}",
                        kind,
                        f"{page.stat().st_size / 1e6:.2f} MB",
                        f"{build:.1f} s" + (f" (+{sim_s:.0f} s simulate)" if sim_s else ""),
                        f"{times[0]:.0f} ms",
                        f"{float(np.median(times[1:] or times)):.0f} ms",
                    ]
                )
                print(" | ".join(rows[-1]), flush=True)
    finally:
        drv.quit()
    head = ["nodes x steps", "series", "page", "build (to_html)", "open, cold", "open, warm median"]
    out = "\n".join(
        [
            *machine_lines(),
            f"1-minute load average: {load_before} before, {load_average()} after",
            f"pages in {folder}",
            "",
            table(head, rows),
            "",
            "open: ms from navigation start until data unpacked and the first step drawn "
            f"(headless Chromium, {args.repeat} opens per page, the first one cold)",
        ]
    )
    print(out)
    return out


if __name__ == "__main__":
    main()
