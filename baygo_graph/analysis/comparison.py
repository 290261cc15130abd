"""The compact result of a comparison: per-run arrays, reduced run by run.

:func:`~baygo_graph.experiments.compare` with ``tidy=False`` returns a
:class:`Comparison` (a pure container of arrays, so it lives with the analysis
that reduces it): the (T, M) MSE and influence arrays of every (strategy,
seed) run, 16 bytes per agent per step, instead of a tidy frame of strategies x
seeds x T x M rows (about 20 times that, and more while pandas builds and
groups it). Its methods give what :mod:`baygo_graph.analysis.stats` gives from
the tidy frame (same columns, index and order; equal to rounding, < 1e-12
relative): :meth:`~Comparison.final_mse`, :meth:`~Comparison.summarize`,
:meth:`~Comparison.paired_difference`, :meth:`~Comparison.seed_bands`; each
reduces one run at a time, so no temporary of the size of all runs is made.
:meth:`~Comparison.to_frame` builds the tidy frame on demand (small studies);
:meth:`~Comparison.write_parquet` (``results.parquet``: exact, about 5 bytes per
row) and :meth:`~Comparison.write_csv` (``results.csv``) write the same table run
by run, in bounded memory; :meth:`~Comparison.read` reloads either.
The functions of :mod:`baygo_graph.analysis.stats` accept a Comparison wherever
they accept the tidy frame.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validate import check_int
from ..defaults import REFERENCE_LABEL
from ..io.comparison_csv import read_arrays, write_frames
from ._reduce import (
    band_frame,
    band_method,
    check_level,
    check_summary_options,
    first_stable,
    paired,
    positive_interval,
)

__all__ = ["Comparison"]

_GROUPS = ("informative", "others", "all", "each")


@dataclass(frozen=True, eq=False)
class Comparison:
    """Per-run arrays of :func:`~baygo_graph.experiments.compare` (``tidy=False``).

    Attributes
    ----------
    strategies : tuple of str
        Strategy labels, in the order of the runs.
    mse, influence : numpy.ndarray, shape (S, N, T, M)
        Test MSE and influence (NaN where undefined) of every agent at every
        step of run (strategy, seed).
    informative : numpy.ndarray of int, shape (S, N)
        The informative agent of each run.
    attrs : dict
        What ``df.attrs`` holds on the tidy frame.

    Examples
    --------
    >>> from baygo_graph import synthetic_bodyfat
    >>> from baygo_graph.experiments import compare
    >>> from baygo_graph.models import LinearRegression
    >>> res = compare(["nocol", "cen"], seeds=2, steps=3, agents=3, tidy=False,
    ...               model=LinearRegression(grid=11), data=synthetic_bodyfat(), n_jobs=1,
    ...               progress=False)
    >>> res.mse.shape, res.to_frame().shape
    ((2, 2, 3, 3), (36, 7))
    >>> res.summarize().index.tolist()
    ['nocol', 'cen']
    >>> res.n_seeds, res.n_steps, res.agent_mse("cen")[0].shape
    (2, 3, (3, 3))
    """

    strategies: tuple
    mse: np.ndarray = field(repr=False)
    influence: np.ndarray = field(repr=False)
    informative: np.ndarray = field(repr=False)
    attrs: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if isinstance(self.strategies, str) or not isinstance(self.attrs, dict):
            raise TypeError(
                "strategies must be a sequence of labels and attrs a dict, got "
                f"{type(self.strategies).__name__} and {type(self.attrs).__name__}"
            )
        labels = tuple(self.strategies)
        if not all(isinstance(label, str) for label in labels):
            raise TypeError(f"strategies must be str labels, got {labels!r}")
        if len(set(labels)) != len(labels):
            raise ValueError(f"strategies must not repeat a label, got {labels!r}")
        mse = np.asarray(self.mse, dtype=float)
        if mse.ndim != 4 or mse.shape[0] != len(labels) or 0 in mse.shape[1:]:
            raise ValueError(
                f"mse must have shape (strategies={len(labels)}, seeds >= 1, steps >= 1, "
                f"agents >= 1), got {mse.shape}"
            )
        influence = np.asarray(self.influence, dtype=float)
        if influence.shape != mse.shape:
            raise ValueError(
                f"influence must have the shape of mse {mse.shape}, got {influence.shape}"
            )
        inf = np.asarray(self.informative)
        if inf.shape != mse.shape[:2] or not np.issubdtype(inf.dtype, np.integer):
            raise ValueError(
                f"informative must be ints of shape {mse.shape[:2]}, got {inf.dtype} {inf.shape}"
            )
        if inf.size and not (-1 <= inf.min() and inf.max() < mse.shape[3]):
            raise ValueError(f"informative must be agents in [-1, {mse.shape[3]}), got {inf!r}")
        for name, value in (("strategies", labels), ("mse", mse), ("influence", influence),
                            ("informative", inf)):  # fmt: skip
            object.__setattr__(self, name, value)

    @property
    def shape(self) -> tuple:
        """(strategies S, seeds N, steps T, agents M)."""
        return self.mse.shape

    @property
    def n_seeds(self) -> int:
        """Replicates N per strategy."""
        return int(self.mse.shape[1])

    @property
    def n_steps(self) -> int:
        """Steps T of every run."""
        return int(self.mse.shape[2])

    def index(self, strategy: str) -> int:
        """Position of ``strategy`` in :attr:`strategies` (ValueError if absent)."""
        if strategy not in self.strategies:
            raise ValueError(
                f"strategy {strategy!r} is not in the comparison (has {list(self.strategies)})"
            )
        return self.strategies.index(strategy)

    def agent_mse(self, strategy: str, *, seed: int | None = None) -> tuple:
        """Every agent's MSE per step: ``(mse (T, M), informative agent)``.

        The mean over seeds, or one ``seed``'s values; the informative agent is
        seed 0's (or ``seed``'s), as the tidy table's first flagged row.
        """
        s = self.index(strategy)
        if seed is None:
            return self.mse[s].mean(axis=0), int(self.informative[s, 0])
        seed = check_int("seed", seed, minimum=0, maximum=self.n_seeds - 1)
        return self.mse[s, seed], int(self.informative[s, seed])

    def _masks(self, s: int, r: int) -> tuple:
        m = self.mse.shape[3]
        inf = np.arange(m) == self.informative[s, r]
        return inf, ~inf

    # -- the tidy frame ------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """The tidy frame: one row per (strategy, seed, step, agent), as ``compare()``."""
        df = _tidy(self.strategies, self.mse, self.influence, self.informative)
        df.attrs = dict(self.attrs)
        return df

    def write_csv(
        self,
        path,
        *,
        float_format: str = "%.6g",
        comment=None,
        overwrite: bool = False,
        **constants,
    ):
        """Write :meth:`to_frame`'s table to ``path``, one run at a time (atomically).

        Memory stays that of one run's rows whatever the study's size; the file
        equals ``to_frame().assign(**constants).to_csv(path, index=False,
        float_format=float_format)``. ``constants`` add columns of one value
        (e.g. ``data=..., synthetic=...``); ``comment`` a first line ``# comment``.
        A file already at ``path`` is replaced only with ``overwrite=True`` (else
        :class:`FileExistsError`, before any work: every writer's rule).

        Returns
        -------
        pathlib.Path
        """

        def parts():  # one run's rows at a time; the file is written by baygo_graph.io
            for i, label in enumerate(self.strategies):
                for r in range(self.n_seeds):
                    run = np.s_[i : i + 1, r : r + 1]
                    yield _tidy((label,), self.mse[run], self.influence[run],
                                self.informative[run], seed0=r).assign(**constants)  # fmt: skip

        return write_frames(
            path, parts(), float_format=float_format, comment=comment, overwrite=overwrite
        )

    @classmethod
    def read_csv(cls, path, *, chunksize: int = 1_000_000) -> Comparison:
        """Reload a table written by :meth:`write_csv` (or ``to_frame().to_csv``).

        Reads in chunks of ``chunksize`` rows, twice (the labels, then the
        values), so memory stays that of the arrays plus one chunk, checked
        against the budget (:mod:`baygo_graph.limits`) before allocating.
        Labels are read as text, exactly. Leading ``#`` lines (the synthetic
        note of ``baygo compare --out``) are skipped; the columns ``data`` and
        ``synthetic``, when present, become ``attrs["data_source"]`` and
        ``attrs["synthetic"]`` (True if any row says so).

        Raises
        ------
        DataError
            A missing column; a seed, step or agent that is not an integer in
            [0, 2^40); an MSE or influence that is not a number; an
            ``informative`` or ``synthetic`` value that is not a boolean; two
            informative agents in one run; a repeated row; or a table that
            is not complete (every strategy needs every seed, step and agent).
        BudgetError
            When the arrays would exceed the memory budget.

        Examples
        --------
        >>> import tempfile
        >>> res = Comparison(("a", "b"), np.arange(12.0).reshape(2, 1, 2, 3),
        ...                  np.full((2, 1, 2, 3), np.nan), np.array([[0], [2]]))
        >>> back = Comparison.read_csv(res.write_csv(tempfile.mkdtemp() + "/r.csv"))
        >>> back.strategies, back.shape, bool((back.mse == res.mse).all())
        (('a', 'b'), (2, 1, 2, 3), True)
        >>> back.informative.tolist()
        [[0], [2]]
        """
        labels, mse, influence, informative, attrs = read_arrays(path, chunksize=chunksize)
        return cls(tuple(labels), mse, influence, informative, attrs)

    def write_parquet(self, path, *, compression_level: int = 3, overwrite: bool = False):
        """Write the per-step results as Parquet, one run per row group (several seeds
        of small runs), exact float64, with the ``data`` source and the ``synthetic``
        flag of :attr:`attrs` on every row and in the file's metadata: see
        :func:`baygo_graph.io.results.write_results_parquet` (``overwrite=True``
        replaces a file already at ``path``).

        Returns
        -------
        pathlib.Path
        """
        from ..io.results import write_results_parquet

        return write_results_parquet(
            self, path, compression_level=compression_level, overwrite=overwrite
        )

    @classmethod
    def read_parquet(cls, path) -> Comparison:
        """Reload a file written by :meth:`write_parquet`, bit for bit, one row group at a
        time (memory: the arrays plus one run's rows, checked against the budget first);
        ``attrs`` gets ``data_source`` and ``synthetic`` from the file.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> c = Comparison(("a",), np.ones((1, 1, 2, 2)), np.full((1, 1, 2, 2), 0.5),
        ...                np.zeros((1, 1), dtype=int))
        >>> p = c.write_parquet(pathlib.Path(tempfile.mkdtemp()) / "r.parquet")
        >>> Comparison.read_parquet(p).mse.tolist() == c.mse.tolist()
        True
        """
        from ..io.results import read_result_arrays

        labels, mse, influence, informative, attrs = read_result_arrays(path)
        return cls(labels, mse, influence, informative, attrs)

    @classmethod
    def read(cls, path) -> Comparison:
        """Reload a results table: :meth:`read_parquet` for a Parquet file (what
        ``baygo reproduce`` and ``baygo compare --out`` write), :meth:`read_csv`
        otherwise (``results.csv``: ``--csv``, or an earlier version's folder).

        Examples
        --------
        >>> import tempfile, pathlib
        >>> c = Comparison(("a",), np.full((1, 1, 2, 2), 0.1), np.zeros((1, 1, 2, 2)),
        ...                np.zeros((1, 1), dtype=int))
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> a = Comparison.read(c.write_parquet(folder / "results.parquet"))
        >>> b = Comparison.read(c.write_csv(folder / "results.csv"))
        >>> float(a.mse[0, 0, 1, 1]), float(b.mse[0, 0, 1, 1])
        (0.1, 0.1)
        """
        from ..io.results import is_parquet

        if is_parquet(path):  # by its first bytes, whatever its name
            return cls.read_parquet(path)
        return cls.read_csv(path)

    # -- per-run reductions ------------------------------------------------------------
    def curves(self, *, value: str = "mse", group: str = "informative") -> np.ndarray:
        """Per (strategy, seed, step): the mean of ``value`` over the group's agents.

        ``group`` is ``"informative"``, ``"others"`` or ``"all"``; NaN values
        are skipped (NaN where the group has none). Shape (S, N, T).
        """
        arr = self.values(value)
        if group not in _GROUPS[:3]:
            raise ValueError(f"group must be one of {_GROUPS[:3]}, got {group!r}")
        n_s, n_seeds, t, _ = arr.shape
        out = np.empty((n_s, n_seeds, t))
        for s in range(n_s):
            for r in range(n_seeds):
                inf, others = self._masks(s, r)
                cols = {"informative": inf, "others": others}.get(group)
                run = arr[s, r] if cols is None else arr[s, r][:, cols]
                out[s, r] = _nanmean_rows(run)
        return out

    def values(self, value: str = "mse") -> np.ndarray:
        """The (S, N, T, M) array of ``value``: ``"mse"`` or ``"influence"``."""
        if value not in ("mse", "influence"):
            raise ValueError(f"value must be 'mse' or 'influence', got {value!r}")
        return self.mse if value == "mse" else self.influence

    def final_mse(self) -> pd.DataFrame:
        """As :func:`baygo_graph.analysis.final_mse` of the tidy frame.

        Index (strategy, seed); columns ``informative`` and ``others`` (mean
        over the non-informative agents) at the last step.
        """
        n_s, n_seeds, _, m = self.mse.shape
        last = self.mse[:, :, -1, :]  # (S, N, M)
        inf = np.asarray(self.informative)
        has = inf >= 0  # -1: no informative agent, all agents are "others"
        informative = np.full((n_s, n_seeds), np.nan)
        others = np.full((n_s, n_seeds), np.nan)
        # the same numbers as one mean per run: a row's values in the same order
        if has.any():
            at = np.arange(m) == inf[has][:, None]  # (runs with one, M)
            informative[has] = last[has][at]
            if m > 1:
                others[has] = last[has][~at].reshape(-1, m - 1).mean(axis=1)
        if (~has).any():
            others[~has] = last[~has].mean(axis=1)
        index = pd.MultiIndex.from_product(
            [list(self.strategies), range(n_seeds)], names=["strategy", "seed"]
        )
        frame = np.stack([informative.ravel(), others.ravel()], axis=1)
        return pd.DataFrame(frame, index=index, columns=["informative", "others"])

    def seed_bands(self, *, value="mse", group="informative", level=0.95, strategies=None,
                   method=None):  # fmt: skip
        """As :func:`baygo_graph.analysis.seed_bands` of the tidy frame.

        Columns strategy, [agent,] step, mean, lo, hi, n; strategies sorted by
        label (as the tidy version's groupby).
        """
        if group not in _GROUPS:
            raise ValueError(f"group must be one of {_GROUPS}, got {group!r}")
        check_level(level)
        keep = list(self.strategies) if strategies is None else list(strategies)
        order = sorted(s for s in self.strategies if s in keep)
        if group == "others" and self.mse.shape[3] == 1:  # no agent in the group: no rows
            order = []
        idx = [self.strategies.index(s) for s in order]
        if group == "each":
            per_seed = self.values(value)[idx]  # (S', N, T, M)
        elif idx:
            per_seed = self.curves(value=value, group=group)[idx]  # (S', N, T)
        else:
            per_seed = np.empty((0, *self.mse.shape[1:3]))
        method = band_method(value, method)
        return band_frame(per_seed, order, level, each=group == "each", method=method)

    def summarize(self, *, tolerance: float = 0.05, consensus_tol: float = 0.01, level=0.95):
        """As :func:`baygo_graph.analysis.summarize` of the tidy frame (same columns)."""
        check_summary_options(tolerance=tolerance, consensus_tol=consensus_tol, level=level)
        order = list(self.strategies)
        out = pd.DataFrame(index=pd.Index(order, name="strategy"))
        fin = self.final_mse()
        for col, name in (("informative", "final_mse_informative"), ("others", "final_mse_others")):
            per = fin[col].unstack("seed").reindex(order).to_numpy()
            mean, lo, hi = positive_interval(per, level)
            out[name], out[f"{name}_lo"], out[f"{name}_hi"] = mean, lo, hi
        curve = self.curves(group="all").mean(axis=1)  # (S, T): agents, then seeds
        if REFERENCE_LABEL in order:
            ok = curve <= (1.0 + tolerance) * curve[order.index(REFERENCE_LABEL)]
            within = first_stable(ok)
            out["steps_to_cen"] = np.where(np.isnan(within), np.inf, within)  # inf: never
        else:
            out["steps_to_cen"] = np.nan
        spread = self.mse.max(axis=3) - self.mse.min(axis=3)  # (S, N, T)
        first = first_stable(spread <= consensus_tol)  # (S, N)
        median = np.median(np.where(np.isnan(first), np.inf, first), axis=1)
        out["consensus_step"] = median  # inf: the median seed never gets there
        out["consensus_reached"] = np.isfinite(first).mean(axis=1)
        inf_curve = self.curves(value="influence", group="informative")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a strategy without influence
            out["influence_informative"] = np.nanmean(inf_curve.reshape(len(order), -1), axis=1)
        out["seeds"] = self.mse.shape[1]
        return out

    def paired_difference(self, strategy: str, baseline: str, *, level: float = 0.95):
        """As :func:`baygo_graph.analysis.paired_difference` of the tidy frame."""
        check_level(level)
        for name, label in (("strategy", strategy), ("baseline", baseline)):
            if label not in self.strategies:
                raise ValueError(f"{name} {label!r} is not in df (has {sorted(self.strategies)})")
        fin = self.final_mse()
        diff = fin.xs(strategy, level="strategy") - fin.xs(baseline, level="strategy")
        from scipy import stats  # here, not at import: scipy.stats takes ~0.8 s to import

        rows = {
            name: paired(diff[col].dropna().to_numpy(), level, stats.ttest_1samp)
            for col, name in (
                ("informative", "final_mse_informative"),
                ("others", "final_mse_others"),
            )
        }
        out = pd.DataFrame.from_dict(rows, orient="index").rename_axis("metric")
        return out.astype({"n": np.int64})


def _tidy(labels, mse, influence, informative, *, seed0: int = 0) -> pd.DataFrame:
    """The tidy rows of (S', N', T, M) arrays: strategy, seed (from ``seed0``), step, agent,
    informative, mse, influence; the one layout of :meth:`Comparison.to_frame` and
    :meth:`Comparison.write_csv`."""
    n_s, n_seeds, t, m = mse.shape
    n_runs = n_s * n_seeds
    agent = np.tile(np.arange(m, dtype=np.int64), n_runs * t)
    seeds = np.arange(seed0, seed0 + n_seeds, dtype=np.int64)
    df = pd.DataFrame(
        {
            "strategy": np.repeat(np.array(list(labels), dtype=object), n_seeds * t * m),
            "seed": np.tile(np.repeat(seeds, t * m), n_s),
            "step": np.tile(np.repeat(np.arange(t, dtype=np.int64), m), n_runs),
            "agent": agent,
            "informative": agent == np.repeat(informative.ravel(), t * m),
            "mse": mse.ravel().astype(float),
            "influence": influence.ravel(),
        }
    )
    df["strategy"] = df["strategy"].astype(str)
    return df


def _nanmean_rows(run: np.ndarray) -> np.ndarray:
    """Mean of each row skipping NaN; NaN for a row without a value (no warning)."""
    if not np.isnan(run).any():
        return run.mean(axis=1)
    n = np.count_nonzero(~np.isnan(run), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.nansum(run, axis=1) / np.maximum(n, 1), np.nan)
