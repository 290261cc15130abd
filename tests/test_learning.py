"""The learning loop against dense references, its invariants and reproducibility."""

from __future__ import annotations

import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
from scipy.special import logsumexp

import baygo_graph as bg
from baygo_graph._validate import seed_from_record
from baygo_graph.data import paper_split, synthetic_bodyfat
from baygo_graph.experiments import compare
from baygo_graph.learning import draw_batches
from baygo_graph.models import LinearRegression, make_grid
from baygo_graph.strategies import BayGo, physical_at

DATA = synthetic_bodyfat()
COARSE = pytest.mark.filterwarnings("ignore::baygo_graph.GridResolutionWarning")


# -- a few-line dense reference of one step ---------------------------------------
def reference_first_step(strategy, *, agents, grid, seed, delta=0.5, batch=2):
    """Step 1 written the plain way: loops, scipy, explicit W."""
    rng = np.random.default_rng(seed)
    split = paper_split(DATA, agents=agents, rng=rng)
    x, y = draw_batches(split, batch, rng)
    theta = make_grid(grid).theta
    sigma = split.sigma_ls
    prior = -0.5 * (theta**2 / 0.5).sum(1)
    prior -= logsumexp(prior)
    ll = np.array(
        [
            [-0.5 * np.sum((y[i] - a - b * x[i]) ** 2) / sigma**2 for a, b in theta]
            for i in range(agents)
        ]
    )
    if strategy == "cen-stratified":
        local = prior + ll.sum(0)
        return np.tile(local - logsumexp(local), (agents, 1)), None
    local = prior + ll
    local -= logsumexp(local, axis=1, keepdims=True)
    p = np.exp(local)
    kl = np.array(
        [[np.sum(p[i] * (local[i] - local[j])) for j in range(agents)] for i in range(agents)]
    )
    w = np.zeros((agents, agents))
    choice = None
    if strategy == "baygo":
        np.fill_diagonal(kl, -np.inf)
        choice = kl.argmax(axis=1)
        w[np.arange(agents), choice] = 1 - delta
        w[np.arange(agents), np.arange(agents)] += delta
    elif strategy == "complete":  # the paper's plain averaging
        w[:] = 1 / agents
    elif strategy in ("posm", "negm"):  # the paper's star: centre 1/M, leaves 1/2 and 1/2
        c = 0 if strategy == "posm" else 1
        w[:, c] = 0.5
        np.fill_diagonal(w, 0.5)
        w[c, :] = 1 / agents
    elif strategy == "nocol":
        w = np.eye(agents)
    pooled = w @ local
    return pooled - logsumexp(pooled, axis=1, keepdims=True), choice


@COARSE
@pytest.mark.parametrize(
    "strategy", ["baygo", "complete", "posm", "negm", "nocol", "cen-stratified"]
)
@pytest.mark.parametrize(("agents", "grid"), [(3, 3), (4, 3), (2, 2)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_first_step_matches_dense_reference(strategy, agents, grid, seed):
    expected, choice = reference_first_step(strategy, agents=agents, grid=grid, seed=seed)
    run = bg.simulate(
        strategy,
        agents=agents,
        steps=1,
        model=LinearRegression(grid=grid),
        batch=2,
        rng=seed,
        data=DATA,
        keep_posteriors=[0],
    )
    np.testing.assert_allclose(run.posteriors[0], expected, rtol=1e-10, atol=1e-10)
    if choice is not None:
        np.testing.assert_array_equal(run.choices[0], choice)
    theta = make_grid(grid).theta
    np.testing.assert_allclose(run.mean[0], np.exp(expected) @ theta, atol=1e-12)


@COARSE
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cen_draws_agents_x_batch_samples_from_the_pooled_training_set(seed):
    """Cen's first step: M x batch uniform draws (with replacement) from all training data."""
    agents, grid, batch = 4, 5, 3
    run = bg.simulate(
        "cen",
        agents=agents,
        steps=1,
        model=LinearRegression(grid=grid),
        batch=batch,
        rng=seed,
        data=DATA,
        keep_posteriors=[0],
    )
    rng = np.random.default_rng(seed)
    split = paper_split(DATA, agents=agents, rng=rng)
    xs = np.concatenate([split.x[a, : split.counts[a]] for a in range(agents)])
    ys = np.concatenate([split.y[a, : split.counts[a]] for a in range(agents)])
    idx = rng.integers(0, len(xs), size=agents * batch)
    theta = make_grid(grid).theta
    prior = -0.5 * (theta**2 / 0.5).sum(1)
    ll = np.array([-0.5 * np.sum((ys[idx] - a - b * xs[idx]) ** 2) for a, b in theta])
    local = prior + ll / split.sigma_ls**2
    expected = local - logsumexp(local)
    np.testing.assert_allclose(run.posteriors[0][0], expected, rtol=1e-10, atol=1e-10)
    assert run.config["central_data"].startswith("agents x batch")


@COARSE
def test_pooled_cen_sees_the_informative_region_stratified_cen_does_not():
    """With one informative agent among many, the stratified learner sees its region
    in 1/M of its draws; the pooled one in proportion to the data."""
    split = paper_split(DATA, agents=12, rng=0)
    share = split.counts[0] / split.counts.sum()
    assert share > 0.3  # the informative region holds a large part of the data
    kw = {"agents": 12, "steps": 100, "model": LinearRegression(grid=41), "data": DATA}
    pooled = np.mean([bg.simulate("cen", rng=s, **kw).mse[-1, 0] for s in range(3)])
    strat = np.mean([bg.simulate("cen-stratified", rng=s, **kw).mse[-1, 0] for s in range(3)])
    assert pooled < strat


@COARSE
def test_loop_matches_dense_reference_over_steps():
    """Several steps of BayGo against a reference loop fed the run's own batches."""
    agents, grid, steps, delta = 4, 3, 6, 0.3
    run = bg.simulate(
        "baygo",
        agents=agents,
        steps=steps,
        model=LinearRegression(grid=grid),
        rng=7,
        data=DATA,
        delta=delta,
        keep_posteriors=range(steps),
    )
    rng = np.random.default_rng(7)
    split = paper_split(DATA, agents=agents, rng=rng)
    theta = make_grid(grid).theta
    logp = np.tile(-0.5 * (theta**2 / 0.5).sum(1), (agents, 1))
    for t in range(steps):
        x, y = draw_batches(split, 1, rng)
        resid = y[:, :1] - theta[:, 0] - theta[:, 1] * x[:, :1]
        local = logp - 0.5 * resid**2 / split.sigma_ls**2
        local -= logsumexp(local, axis=1, keepdims=True)
        p = np.exp(local)
        kl = (p * local).sum(1)[:, None] - p @ local.T
        np.fill_diagonal(kl, -np.inf)
        choice = kl.argmax(1)
        np.testing.assert_array_equal(run.choices[t], choice)
        logp = delta * local + (1 - delta) * local[choice]
        logp -= logsumexp(logp, axis=1, keepdims=True)
        np.testing.assert_allclose(run.posteriors[t], logp, atol=1e-10)


# -- the exact Gaussian reference -------------------------------------------------
def gaussian_loop(run, split, batches, sigma, prior_var=0.5):
    """Closed-form conjugate updates and Gaussian geometric pooling."""
    m = run.n_agents
    prec = np.tile(np.eye(2) / prior_var, (m, 1, 1))
    mean = np.zeros((m, 2))
    out = []
    for t, (x, y) in enumerate(batches):
        design = np.stack([np.ones_like(x), x], axis=-1)  # (M, b, 2)
        new_prec = prec + np.einsum("mbi,mbj->mij", design, design) / sigma**2
        h = np.einsum("mij,mj->mi", prec, mean) + np.einsum("mbi,mb->mi", design, y) / sigma**2
        mean = np.linalg.solve(new_prec, h[..., None])[..., 0]
        w = run.weights(t).toarray()
        prec_pool = np.einsum("ij,jkl->ikl", w, new_prec)
        h_pool = np.einsum("ij,jkl,jl->ik", w, new_prec, mean)
        prec, mean = prec_pool, np.linalg.solve(prec_pool, h_pool[..., None])[..., 0]
        out.append((mean.copy(), np.linalg.inv(prec)))
    return out


@pytest.mark.parametrize("strategy", ["baygo", "complete", "negm"])
def test_grid_approaches_gaussian_closed_form(strategy, bodyfat_path):
    steps, agents, batch = 8, 4, 3
    kwargs = {"agents": agents, "steps": steps, "batch": batch, "data": bodyfat_path}
    model = LinearRegression(grid=161, bounds=(-3.0, 3.0))
    run = bg.simulate(strategy, rng=3, model=model, keep_posteriors=range(steps), **kwargs)
    rng = np.random.default_rng(3)
    split = paper_split(bg.load_bodyfat(bodyfat_path), agents=agents, rng=rng)
    batches = [draw_batches(split, batch, rng) for _ in range(steps)]
    exact = gaussian_loop(run, split, batches, run.config["sigma"])
    theta = make_grid(161, bounds=(-3.0, 3.0)).theta
    for t, (mean, cov) in enumerate(exact):
        p = np.exp(run.posteriors[t])
        grid_mean = p @ theta
        centred = theta[None] - grid_mean[:, None]
        grid_cov = np.einsum("mk,mki,mkj->mij", p, centred, centred)
        np.testing.assert_allclose(grid_mean, mean, atol=2e-3)
        np.testing.assert_allclose(grid_cov, cov, rtol=0.02, atol=1e-4)


# -- invariants of every step graph -----------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_baygo_step_graphs_follow_physical_graph(seed):
    agents = 10
    physical = nx.random_regular_graph(3, agents, seed=seed)
    delta = 0.4
    run = bg.simulate(
        BayGo(physical=physical),
        agents=agents,
        steps=15,
        model=LinearRegression(grid=11),
        rng=seed,
        data=DATA,
        delta=delta,
    )
    allowed = {(u, v) for u, v in physical.edges} | {(v, u) for u, v in physical.edges}
    for g in run.graphs():
        w = nx.to_numpy_array(g, nodelist=range(agents)).T  # W = A^T
        np.testing.assert_allclose(w.sum(1), 1.0)
        np.testing.assert_allclose(np.diag(w), delta)
        assert all(g.in_degree(i) == 2 for i in range(agents))  # self-loop + one neighbour
        assert {(u, v) for u, v in g.edges if u != v} <= allowed
        assert sum(nx.get_node_attributes(g, "informative").values()) == 1


@COARSE
def test_agent_without_physical_neighbour_keeps_itself():
    physical = nx.path_graph(3)
    physical.add_node(3)
    run = bg.simulate(
        BayGo(physical=physical),
        agents=4,
        steps=3,
        model=LinearRegression(grid=9),
        rng=0,
        data=DATA,
    )
    assert (run.choices[:, 3] == -1).all()
    assert run.weights(0).toarray()[3].tolist() == [0, 0, 0, 1]


@pytest.mark.slow
def test_sharp_likelihood_stays_finite():
    steps = 10_000
    with pytest.warns(bg.GridResolutionWarning, match="too coarse"):
        run = bg.simulate(
            "baygo",
            agents=3,
            steps=steps,
            model=LinearRegression(grid=15, sigma=0.05),
            rng=0,
            data=DATA,
            keep_posteriors=range(0, steps, 500),
        )
    for arr in [run.mse, run.entropy, run.mean, *run.posteriors.values()]:
        assert np.isfinite(arr).all()
    assert len(run.posteriors) == 20
    assert (run.entropy >= -1e-9).all()


# -- reproducibility ---------------------------------------------------------------
@pytest.mark.parametrize("strategy", ["baygo", "negm", "cen-stratified"])
def test_same_rng_same_run_other_rng_other_run(strategy):
    kw = {
        "agents": 5,
        "steps": 20,
        "model": LinearRegression(grid=15),
        "data": DATA,
        "keep_posteriors": [-1],
    }
    a = bg.simulate(strategy, rng=11, **kw)
    b = bg.simulate(strategy, rng=11, **kw)
    assert a == b
    c = bg.simulate(strategy, rng=12, **kw)
    assert not np.array_equal(a.mse, c.mse)


def test_generator_seed_is_recorded_and_reproduces_the_run():
    kw = {"agents": 4, "steps": 10, "model": LinearRegression(grid=11), "data": DATA}
    a = bg.simulate("baygo", rng=np.random.default_rng(5), **kw)
    rec = a.config["seed"]
    assert set(rec) == {"entropy", "spawn_key"}
    b = bg.simulate("baygo", rng=seed_from_record(rec), **kw)
    np.testing.assert_array_equal(a.mse, b.mse)
    np.testing.assert_array_equal(a.choices, b.choices)
    # the same Generator state gives the same run
    c = bg.simulate("baygo", rng=np.random.default_rng(5), **kw)
    np.testing.assert_array_equal(a.choices, c.choices)


def test_named_physical_graph_is_recorded_and_reproduced():
    kw = {"agents": 8, "steps": 6, "model": LinearRegression(grid=11), "data": DATA}
    a = bg.simulate(BayGo(physical="regular-3"), rng=4, **kw)
    g = physical_at(a, 0)
    assert all(g.in_degree(i) == 3 for i in range(8))
    assert np.all(np.isin(a.choices, [-1, *range(8)]))
    for t in range(6):  # every choice lies on a recorded physical edge
        assert all(g.has_edge(int(a.choices[t, i]), i) for i in range(8))
    b = bg.simulate(BayGo(physical=g), rng=4, **kw)  # the recorded graph: same run
    np.testing.assert_array_equal(a.mse, b.mse)


def test_same_seed_same_run_in_another_process(tmp_path):
    code = (
        "import baygo_graph as bg;"
        "from baygo_graph.models import LinearRegression;"
        "r = bg.simulate('baygo', agents=5, steps=15, model=LinearRegression(grid=11), rng=3,"
        " data=bg.synthetic_bodyfat());"
        f"r.save({str(tmp_path / 'child')!r})"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    here = bg.simulate(
        "baygo",
        agents=5,
        steps=15,
        model=LinearRegression(grid=11),
        rng=3,
        data=synthetic_bodyfat(),
    )
    assert bg.Run.load(tmp_path / "child") == here


@COARSE
def test_seed_sequence_is_recorded():
    seq = np.random.SeedSequence(99).spawn(2)[1]
    run = bg.simulate(
        "nocol", agents=3, steps=2, model=LinearRegression(grid=5), rng=seq, data=DATA
    )
    assert run.config["seed"] == {"entropy": "99", "spawn_key": [1]}


def test_float32_tracks_float64():
    kw = {"agents": 6, "steps": 40, "rng": 2, "data": DATA}
    a = bg.simulate("baygo", model=LinearRegression(grid=31), **kw)
    b = bg.simulate("baygo", model=LinearRegression(grid=31, dtype="float32"), **kw)
    np.testing.assert_allclose(b.mse, a.mse, rtol=1e-3)
    assert b.config["dtype"] == "float32"


# -- the paper's qualitative result -----------------------------------------------
@pytest.mark.slow
def test_paper_result_on_bodyfat(bodyfat_path):
    seeds = np.random.SeedSequence(2024).spawn(12)
    final = {s: [] for s in ("baygo", "complete", "nocol")}
    for seq in seeds:
        for s in final:
            mse = bg.simulate(s, steps=60, rng=seq, data=bodyfat_path).mse[-1]
            final[s].append([mse[0], mse[1:].mean()])
    mean = {s: np.mean(v, axis=0) for s, v in final.items()}
    print({s: m.round(4).tolist() for s, m in mean.items()})
    assert mean["baygo"][0] < mean["complete"][0]  # informative agent
    assert mean["baygo"][1] < mean["complete"][1]  # non-informative agents
    assert mean["nocol"][1] > mean["baygo"][1]


# -- arguments ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"agents": 1}, "agents must be an integer >= 2, got 1"),
        ({"steps": 0}, "steps must be"),
        ({"delta": 1.5}, "delta must be in"),
        ({"keep_posteriors": [99]}, "keep_posteriors"),
        ({"strategy": "ring"}, "strategy must be one of"),
        ({"strategy": nx.path_graph(5)}, "nodes 0..11"),
        ({"informative": 12}, "informative must be"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    kwargs = {
        "strategy": "baygo",
        "data": DATA,
        "steps": 2,
        "model": LinearRegression(grid=5),
        **kwargs,
    }
    with pytest.raises(ValueError, match=match):
        bg.simulate(kwargs.pop("strategy"), **kwargs)


def test_bad_argument_types_are_type_errors():
    with pytest.raises(TypeError, match="batch must be an integer >= 1, got float 2.5"):
        bg.simulate("baygo", data=DATA, steps=2, model=LinearRegression(grid=5), batch=2.5)


def test_bad_rng_type():
    with pytest.raises(TypeError, match="rng must be"):
        bg.simulate("baygo", rng="seed", data=DATA, steps=1, model=LinearRegression(grid=5))


def test_a_recorded_seed_reruns_the_run():
    kw = {"agents": 4, "steps": 6, "model": LinearRegression(grid=11), "data": DATA}
    for rng in (np.random.default_rng(3), np.random.SeedSequence(8, spawn_key=(2,)), None):
        a = bg.simulate("baygo", rng=rng, **kw)
        b = bg.simulate("baygo", rng=a.config["seed"], **kw)
        np.testing.assert_array_equal(a.choices, b.choices)
        assert b.config["seed"] == a.config["seed"]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"informative": 1.5}, TypeError, "informative must be an integer"),
        ({"informative": True}, TypeError, "informative must be an integer"),
        ({"keep_posteriors": True}, TypeError, "keep_posteriors must be a sequence"),
        ({"monitors": "theorem"}, TypeError, "monitors must be a list or tuple"),
        ({"monitors": [object()]}, TypeError, "start, observe and finish"),
        ({"batch": 10**12}, bg.BudgetError, "batch"),
    ],
)
def test_bad_options_name_themselves(kwargs, error, match):
    with pytest.raises(error, match=match):
        bg.simulate("baygo", data=DATA, steps=2, model=LinearRegression(grid=5), **kwargs)


def test_a_strategy_must_start_a_plan():
    class Broken:
        name = "broken"

        def start(self, **kw):
            return None

    with pytest.raises(TypeError, match="start\\(\\) must return a baygo_graph.strategies.Plan"):
        bg.simulate(Broken(), data=DATA, steps=2, model=LinearRegression(grid=5))


def test_from_choices_checks_delta_and_size():
    with pytest.raises(ValueError, match="delta must be a finite number in"):
        bg.Run.from_choices([[1, 0]], delta=float("nan"))
    with pytest.raises(ValueError, match="delta must be in"):
        bg.Run.from_choices([[1, 0]], delta=2.0)
    with pytest.raises(ValueError, match="at least one step"):
        bg.Run.from_choices(np.zeros((0, 3), dtype=int))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"grid": 21}, r"no longer takes grid=: pass model=LinearRegression\(grid=\.\.\.\)"),
        ({"dtype": "float32"}, r"no longer takes dtype=: pass model=LinearRegression\(dtype="),
        ({"physical": "regular-3"}, r"no longer takes physical=: pass strategy=BayGo\(physical="),
        ({"weights": "delta"}, r"no longer takes weights=: pass strategy=FixedGraph\(graph, "),
    ],
)
def test_old_keywords_are_type_errors_naming_their_spelling(old, new):
    with pytest.raises(TypeError, match=new):
        bg.simulate("baygo", agents=3, steps=1, data=DATA, **old)
    with pytest.raises(TypeError, match=new.replace("simulate", "compare")):
        compare(["nocol"], seeds=1, steps=1, agents=3, data=DATA, **old)


# -- BLAS threads by the size of the products --------------------------------------
class _Probe(bg.strategies.ChoiceStrategy):
    """BayGo's choices; records the BLAS threads seen inside the loop."""

    name = "probe"
    seen: list = []

    def choose(self, t, *, model, state, listen, rng, choices):
        from threadpoolctl import threadpool_info

        blas = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
        type(self).seen.append(max(blas))
        return model.most_divergent(state, listen=listen, rng=rng)


def test_small_products_run_on_one_blas_thread_and_the_limit_is_undone():
    from threadpoolctl import threadpool_info, threadpool_limits

    from baygo_graph.models.rows import SMALL_PRODUCT_FLOPS, blas_threads

    def blas():
        return max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")

    with threadpool_limits(2, user_api="blas"):  # as on a 2-core machine
        _Probe.seen = []
        run = bg.simulate(_Probe(), agents=12, steps=3, rng=0, data=DATA)
        assert _Probe.seen == [1, 1, 1] and blas() == 2  # restored after the run
        same = bg.simulate("baygo", agents=12, steps=3, rng=0, data=DATA)
    np.testing.assert_array_equal(run.choices, same.choices)
    assert 2 * 12 * 12 * 3721 < SMALL_PRODUCT_FLOPS
    assert blas_threads(SMALL_PRODUCT_FLOPS) >= 1 and blas_threads(SMALL_PRODUCT_FLOPS - 1) == 1


class _DividingMonitor:
    """A monitor whose every look divides by zero."""

    def start(self, **kwargs):
        pass

    def observe(self, t, *, local, posterior, weights):
        np.log(np.zeros(1))

    def finish(self):
        return {}, {}


def test_a_step_holds_its_float_warnings_but_monitors_warn_as_outside_the_loop(recwarn):
    """The loop holds numpy's warnings of its steps (released with the step's number once
    its values are finite); what a monitor does between the steps warns as numpy does."""
    bg.simulate("nocol", agents=3, steps=2, model=LinearRegression(grid=5), rng=0,
                data=synthetic_bodyfat(), monitors=[_DividingMonitor()])  # fmt: skip
    texts = {str(w.message) for w in recwarn if issubclass(w.category, RuntimeWarning)}
    assert texts == {"divide by zero encountered in log"}  # numpy's own, not "at step t"


class _StepsSeen:
    """A monitor that notes the steps it is shown; ``until`` as TheoremMonitor's."""

    def __init__(self, until=None):
        self.until, self.seen = until, []

    def start(self, **kwargs):
        pass

    def observe(self, t, *, local, posterior, weights):
        assert local is not None and weights is not None
        self.seen.append(t)

    def finish(self):
        return {}, {"seen": list(self.seen)}


@pytest.mark.parametrize(
    ("untils", "shown"), [((3,), 3), ((3, 5), 5), ((3, None), 7), ((9,), 7), ((), 0)]
)
def test_the_loop_stops_showing_steps_when_every_monitor_has_stopped(untils, shown, monkeypatch):
    """Steps past every monitor's ``until`` are neither shown nor prepared (no local
    posteriors computed for them); the run itself is the same bit for bit."""
    model = LinearRegression(grid=7)
    calls = []
    real = type(model).posterior_local
    monkeypatch.setattr(type(model), "posterior_local",
                        lambda self, state: calls.append(1) or real(self, state))  # fmt: skip
    mons = [_StepsSeen(u) for u in untils]
    kw = {"agents": 3, "steps": 7, "model": model, "data": synthetic_bodyfat()}
    runs = bg.simulate_seeds("baygo", seeds=[0, 1], monitors=mons, at_once=2, **kw)
    assert len(calls) == shown  # one call a step for the two seeds' loop
    for run in runs:
        seen = run.config.get("monitors", {}).get("seen", [])
        assert seen == list(range(min(shown, untils[-1] or 7) if untils else 0))
    plain = bg.simulate_seeds("baygo", seeds=[0, 1], **kw)
    for a, b in zip(runs, plain, strict=True):
        np.testing.assert_array_equal(a.mse, b.mse)
        np.testing.assert_array_equal(a.mean, b.mean)
