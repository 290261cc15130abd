"""The paper's equal-weight stars, written from scratch in dense numpy, against the package.

An independent implementation of the PosM and NegM baselines (no code of
``baygo_graph`` beyond the data split): a 61 x 61 grid on [-2, 2]^2 for
(intercept, slope), the Gaussian prior N(0, diag(0.5, 0.5)) on the grid, a Gaussian
likelihood with sigma the residual std of the least-squares fit on the training set,
one sample per agent per step drawn with replacement, and geometric pooling with the
paper's star weights written out by hand (the centre averages every agent 1/M, each
leaf averages itself and the centre 1/2). The data split is the package's
(:func:`baygo_graph.data.paper_split`, same seeds), so only the learning and the
pooling are independent.

For each of N seeds (``SeedSequence(rng).spawn(N)``, as ``compare`` does), the final
test MSE (mean over all agents at the last step) of NegM minus that of PosM; then
the same gap from ``baygo_graph.experiments.compare`` (default weights), and whether
they agree: the package's mean gap lies inside the independent 95% t-interval.

Run::

    python benchmarks/paper_stars.py --data /path/to/bodyfat.csv   # or $BAYGO_BODYFAT
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from scipy import stats
from scipy.special import logsumexp

from baygo_graph.data import BODYFAT_ENV, paper_split
from baygo_graph.models import LinearRegression


def star_weights(agents: int, center: int) -> np.ndarray:
    """The paper's star: centre row 1/M everywhere, leaf rows 1/2 on itself and the centre."""
    w = np.zeros((agents, agents))
    w[center, :] = 1.0 / agents
    for leaf in range(agents):
        if leaf != center:
            w[leaf, leaf] = 0.5
            w[leaf, center] = 0.5
    return w


def run_star(data, *, center: int, seed, agents=12, steps=60, grid=61, bounds=(-2.0, 2.0)):
    """Final test MSE per agent of one star run (dense numpy, log domain)."""
    rng = np.random.default_rng(seed)
    split = paper_split(data, agents=agents, informative=0, rng=rng)
    axis = np.linspace(bounds[0], bounds[1], grid)
    a, b = (v.ravel() for v in np.meshgrid(axis, axis, indexing="ij"))  # (K,)
    logp = -(a**2) / (2 * 0.5) - b**2 / (2 * 0.5)
    logp = np.tile(logp - logsumexp(logp), (agents, 1))  # (M, K)
    sigma = split.sigma_ls
    w = star_weights(agents, center)
    counts = split.counts
    for _ in range(steps):
        idx = (rng.random((agents, 1)) * counts[:, None]).astype(np.intp)
        x = np.take_along_axis(split.x, idx, 1)[:, 0]
        y = np.take_along_axis(split.y, idx, 1)[:, 0]
        resid = y[:, None] - a[None, :] - b[None, :] * x[:, None]
        local = logp - resid**2 / (2 * sigma**2)
        local -= logsumexp(local, axis=1, keepdims=True)
        pooled = w @ local
        logp = pooled - logsumexp(pooled, axis=1, keepdims=True)
    p = np.exp(logp)
    ma, mb = p @ a, p @ b
    pred = ma[:, None] + mb[:, None] * split.x_test[None, :]
    return ((pred - split.y_test[None, :]) ** 2).mean(axis=1)


def independent_gap(data, *, seeds=20, steps=60, rng=0, agents=12, grid=61):
    """Per seed, NegM - PosM final test MSE (mean over all agents), from scratch."""
    kids = np.random.SeedSequence(rng).spawn(seeds)
    gaps = []
    for kid in kids:
        posm = run_star(data, center=0, seed=kid, agents=agents, steps=steps, grid=grid)
        negm = run_star(data, center=1, seed=kid, agents=agents, steps=steps, grid=grid)
        gaps.append(negm.mean() - posm.mean())
    return np.array(gaps)


def package_gap(data, *, seeds=20, steps=60, rng=0, agents=12, grid=61, weights="equal"):
    """The same gap from :func:`baygo_graph.experiments.compare`."""
    from baygo_graph.experiments import compare
    from baygo_graph.strategies import resolve_strategy

    stars = {s: resolve_strategy(s, agents=agents, weights=weights) for s in ("posm", "negm")}
    df = compare(stars, seeds=seeds, steps=steps, rng=rng, data=data,
                 model=LinearRegression(grid=grid), agents=agents, n_jobs=1,
                 progress=False)  # fmt: skip
    last = df[df["step"] == df["step"].max()]
    per = last.groupby(["strategy", "seed"])["mse"].mean().unstack("strategy")
    return (per["negm"] - per["posm"]).to_numpy()


def interval(values, level=0.95):
    """(mean, lo, hi) of the t-interval of the mean."""
    v = np.asarray(values, dtype=float)
    half = stats.t.ppf(0.5 + level / 2, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v))
    return float(v.mean()), float(v.mean() - half), float(v.mean() + half)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.environ.get(BODYFAT_ENV))
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args(argv)
    if args.data is None:
        raise SystemExit(f"give --data or set ${BODYFAT_ENV} to the bodyfat CSV")
    ind = interval(independent_gap(args.data, seeds=args.seeds, steps=args.steps))
    for rule in ("equal", "delta"):
        pkg = interval(package_gap(args.data, seeds=args.seeds, steps=args.steps, weights=rule))
        inside = ind[1] <= pkg[0] <= ind[2]
        print(
            f"NegM - PosM final MSE over {args.seeds} seeds, T = {args.steps}: independent "
            f"{ind[0]:+.4f} [{ind[1]:+.4f}, {ind[2]:+.4f}]; package weights={rule!r} "
            f"{pkg[0]:+.4f} [{pkg[1]:+.4f}, {pkg[2]:+.4f}]; package mean inside the "
            f"independent 95% interval: {inside}"
        )


if __name__ == "__main__":
    main()
