"""The record of one run: compact per-step arrays, graphs made on demand, save/load.

On-disk format (``Run.save``): one ``.npz`` file (numpy's zip of ``.npy`` arrays,
compressed, read with ``allow_pickle=False``) holding

* ``meta`` - a JSON string: ``{"format": "baygo-run", "format_version": 1, ...}``
  with the strategy, kind, informative agent, delta and the full ``config``;
* ``mse``, ``entropy`` (T, M) and ``mean`` (T, M, 2) - per-step metrics;
* ``choices`` (T, M) ints - BayGo's chosen neighbour per step (-1: none), or
  ``w_data``/``w_indices``/``w_indptr`` - the fixed CSR weight matrix;
* ``posterior_steps`` (n,) and ``posteriors`` (n, M, K) - kept log-posteriors.

Writes go to a temporary file in the target folder that is then renamed over the
target, so a crash never leaves a half-written run.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse as sp

from ._io import atomic_write
from .exceptions import RunFormatError

__all__ = ["RUN_FILE", "Run", "read_series", "write_series"]

FORMAT = "baygo-run"
FORMAT_VERSION = 1
SERIES_FORMAT = "baygo-graph-series"
#: File name of a run inside a run folder.
RUN_FILE = "run.npz"


@dataclass(frozen=True, eq=False)
class Run:
    """What one run of :func:`baygo_graph.simulate` produced.

    Steps are numbered ``t = 0 .. T-1``; row ``t`` of every per-step array is the
    state after iteration ``t + 1`` (local update, graph step, pooling).

    Attributes
    ----------
    strategy : str
        Strategy name (``"baygo"``, ``"complete"``, ``"posm"``, ...).
    kind : {"dynamic", "fixed", "cen"}
        Whether W changes each step, is fixed, or there is one central learner.
    informative : int
        Id of the informative agent.
    delta : float
        Self-weight of the pooling step.
    mse : numpy.ndarray, shape (T, M)
        Test MSE of each agent's posterior-mean prediction (standardised units).
    entropy : numpy.ndarray, shape (T, M)
        Entropy (nats) of each agent's posterior on the grid.
    mean : numpy.ndarray, shape (T, M, 2)
        Posterior mean of (intercept, slope).
    choices : numpy.ndarray of int, shape (T, M), or None
        For dynamic strategies: the neighbour each agent listened to (-1: none).
    fixed_weights : scipy.sparse.csr_array, shape (M, M), or None
        For fixed strategies: W, the same every step.
    posteriors : dict of int to numpy.ndarray
        Log-posteriors (M, K) at the steps the caller asked to keep.
    config : dict
        Every parameter of the run, the seed, the data source and the package
        version (JSON-serialisable).
    """

    strategy: str
    kind: str
    informative: int
    delta: float
    mse: np.ndarray = field(repr=False)
    entropy: np.ndarray = field(repr=False)
    mean: np.ndarray = field(repr=False)
    choices: np.ndarray | None = field(default=None, repr=False)
    fixed_weights: sp.csr_array | None = field(default=None, repr=False)
    posteriors: dict = field(default_factory=dict, repr=False)
    config: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_choices(cls, choices, *, delta: float = 0.5, informative: int = 0) -> Run:
        """A dynamic run holding only a choice array made elsewhere (metrics are zeros).

        Lets the analysis functions work on BayGo-like graph series that did not
        come from :func:`baygo_graph.simulate`.

        Parameters
        ----------
        choices : array_like of int, shape (T, M)
            ``choices[t, i]``: the agent that ``i`` listened to at step ``t`` (-1: none).
        delta : float, default 0.5
            Self-weight; the chosen neighbour gets ``1 - delta``.
        informative : int, default 0

        Examples
        --------
        >>> run = Run.from_choices([[1, 0, 0], [2, 2, 1]])
        >>> run.n_steps, run.n_agents, sorted(run.graph(1).in_edges(0))
        (2, 3, [(0, 0), (2, 0)])
        """
        choices = np.asarray(choices)
        if choices.ndim != 2 or not np.issubdtype(choices.dtype, np.integer):
            raise ValueError(f"choices must be a 2-D integer array (T, M), got {choices.shape}")
        t, m = choices.shape
        if choices.size and (choices.min() < -1 or choices.max() >= m):
            raise ValueError(
                f"choices must be agent ids in [-1, {m}), got {choices.min()}..{choices.max()}"
            )
        if not 0 <= informative < m:
            raise ValueError(f"informative must be an agent id in [0, {m}), got {informative!r}")
        zeros = np.zeros((t, m))
        return cls(
            strategy="baygo",
            kind="dynamic",
            informative=int(informative),
            delta=float(delta),
            mse=zeros,
            entropy=zeros.copy(),
            mean=np.zeros((t, m, 2)),
            choices=choices.astype(np.int32),
        )

    # -- shape -----------------------------------------------------------------
    @property
    def n_steps(self) -> int:
        """Number of steps T."""
        return self.mse.shape[0]

    @property
    def n_agents(self) -> int:
        """Number of agents M."""
        return self.mse.shape[1]

    @property
    def synthetic(self) -> bool:
        """True when the run used synthetic data."""
        return bool(self.config.get("data", {}).get("synthetic", False))

    @property
    def data_source(self) -> str:
        """Where the data came from (a path, ``"dataframe"`` or a synthetic label)."""
        return str(self.config.get("data", {}).get("source", "unknown"))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Run):
            return NotImplemented
        same = (
            (self.strategy, self.kind, self.informative, self.delta, self.config)
            == (other.strategy, other.kind, other.informative, other.delta, other.config)
            and _array_equal(self.choices, other.choices)
            and self.posteriors.keys() == other.posteriors.keys()
        )
        if self.fixed_weights is None or other.fixed_weights is None:
            same = same and self.fixed_weights is other.fixed_weights
        else:
            same = same and (self.fixed_weights != other.fixed_weights).nnz == 0
        arrays = [(self.mse, other.mse), (self.entropy, other.entropy), (self.mean, other.mean)]
        arrays += [(self.posteriors[t], other.posteriors[t]) for t in self.posteriors]
        return same and all(_array_equal(a, b) for a, b in arrays)

    __hash__ = None

    # -- graphs ----------------------------------------------------------------
    def _check_step(self, t) -> int:
        if isinstance(t, bool) or not isinstance(t, int | np.integer):
            raise TypeError(f"step must be an int, got {type(t).__name__}")
        if not -self.n_steps <= t < self.n_steps:
            raise IndexError(f"step {t} out of range for a run of {self.n_steps} steps")
        return int(t) % self.n_steps

    def weights(self, t: int) -> sp.csr_array:
        """The row-stochastic weight matrix W of step ``t`` (row i: agent i's weights).

        Raises
        ------
        ValueError
            For the centralised learner, which has no communication graph.
        """
        t = self._check_step(t)
        if self.kind == "cen":
            raise ValueError("the centralised learner (cen) has no communication graph")
        if self.kind == "fixed":
            return self.fixed_weights.copy()
        return _choice_weights(self.choices[t], self.delta)

    def step_edges(self, start: int = 0, stop: int | None = None):
        """Every edge of steps ``start .. stop-1`` as flat arrays, self-loops excluded.

        Returns
        -------
        step, src, dst, weight : numpy.ndarray
            Edge ``(src[e], dst[e])`` of step ``step[e]``: ``dst`` receives from
            ``src`` with weight ``w[dst, src]`` (DESIGN.md's convention).
        """
        stop = self.n_steps if stop is None else stop
        if not 0 <= start <= stop <= self.n_steps:
            raise ValueError(f"need 0 <= start <= stop <= {self.n_steps}, got {start}, {stop}")
        if self.kind == "cen":
            raise ValueError("the centralised learner (cen) has no communication graph")
        if self.kind == "fixed":
            w = sp.coo_array(self.fixed_weights)
            off = w.row != w.col
            n = stop - start
            step = np.repeat(np.arange(start, stop), off.sum())
            return step, np.tile(w.col[off], n), np.tile(w.row[off], n), np.tile(w.data[off], n)
        ch = self.choices[start:stop]
        t, dst = np.nonzero(ch >= 0)
        return t + start, ch[t, dst].astype(np.int64), dst, np.full(len(t), 1.0 - self.delta)

    def graph(self, t: int) -> nx.DiGraph:
        """The weighted digraph of step ``t``.

        Edge ``(j, i)`` means agent ``i`` receives from ``j``, with attribute
        ``weight = w_ij``; every node has its self-loop with ``w_ii``; node
        attribute ``informative`` marks the informative agent; graph attributes
        ``step``, ``strategy`` and ``synthetic`` (True for synthetic data). All M
        nodes are present.

        Examples
        --------
        >>> from baygo_graph import simulate, synthetic_bodyfat
        >>> run = simulate("baygo", agents=4, steps=3, grid=11, rng=0, data=synthetic_bodyfat())
        >>> g = run.graph(0)
        >>> g.number_of_nodes(), g.in_degree(1), g.nodes[0]["informative"]
        (4, 2, True)
        """
        w = sp.coo_array(self.weights(t))
        g = nx.DiGraph(step=self._check_step(t), strategy=self.strategy, synthetic=self.synthetic)
        g.add_nodes_from(range(self.n_agents), informative=False)
        g.nodes[self.informative]["informative"] = True
        g.add_weighted_edges_from(zip(w.col.tolist(), w.row.tolist(), w.data.tolist(), strict=True))
        return g

    def graphs(self, start: int = 0, stop: int | None = None) -> Iterator[nx.DiGraph]:
        """Iterate the step graphs lazily (see :meth:`graph`)."""
        stop = self.n_steps if stop is None else stop
        for t in range(start, stop):
            yield self.graph(t)

    # -- summaries -------------------------------------------------------------
    def chosen_counts(self) -> np.ndarray:
        """How often each agent was listened to, over all steps and agents.

        For fixed strategies, the number of agents listening to each, times T.
        """
        if self.kind == "cen":
            return np.zeros(self.n_agents, dtype=np.int64)
        _, src, _, _ = self.step_edges()
        return np.bincount(src, minlength=self.n_agents)

    def summary(self) -> dict:
        """A short JSON-serialisable summary of the run.

        Examples
        --------
        >>> from baygo_graph import simulate, synthetic_bodyfat
        >>> run = simulate("nocol", agents=3, steps=2, grid=9, rng=0, data=synthetic_bodyfat())
        >>> s = run.summary()
        >>> s["strategy"], s["synthetic"], len(s["final_mse"])
        ('nocol', True, 3)
        """
        final = self.mse[-1]
        others = np.delete(final, self.informative)
        out = {
            "strategy": self.strategy,
            "agents": self.n_agents,
            "steps": self.n_steps,
            "data": self.data_source,
            "synthetic": self.synthetic,
            "seed": self.config.get("seed"),
            "informative": self.informative,
            "final_mse_informative": float(final[self.informative]),
            "final_mse_others_mean": float(others.mean()),
            "final_mse": final.tolist(),
        }
        if self.kind == "dynamic":
            out["chosen_counts"] = self.chosen_counts().tolist()
        return out

    # -- storage ---------------------------------------------------------------
    def save(self, path) -> Path:
        """Write the run to ``path`` (a ``.npz`` file, or a folder that gets ``run.npz``).

        Returns the file written. The write is atomic.
        """
        path = Path(path)
        if path.suffix != ".npz":
            path = path / RUN_FILE
        meta = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "strategy": self.strategy,
            "kind": self.kind,
            "informative": self.informative,
            "delta": self.delta,
            "config": self.config,
        }
        arrays = {"meta": np.array(json.dumps(meta)), "mse": self.mse}
        arrays |= {"entropy": self.entropy, "mean": self.mean}
        if self.choices is not None:
            arrays["choices"] = self.choices
        if self.fixed_weights is not None:
            w = self.fixed_weights
            arrays |= {"w_data": w.data, "w_indices": w.indices, "w_indptr": w.indptr}
        steps = sorted(self.posteriors)
        arrays["posterior_steps"] = np.array(steps, dtype=np.int64)
        if steps:
            arrays["posteriors"] = np.stack([self.posteriors[t] for t in steps])
        atomic_write(path, lambda fh: np.savez_compressed(fh, **arrays))
        return path

    @classmethod
    def load(cls, path) -> Run:
        """Read a run written by :meth:`save` (a ``.npz`` file or its folder).

        Raises
        ------
        RunFormatError
            When the file is missing, not a saved run, or corrupt.
        """
        path = Path(path)
        if path.is_dir():
            path = path / RUN_FILE
        if not path.is_file():
            raise RunFormatError(f"no saved run at {str(path)!r}")
        try:
            with np.load(path, allow_pickle=False) as f:
                arrays = {k: f[k] for k in f.files}
            meta = json.loads(str(arrays["meta"]))
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as e:
            raise RunFormatError(f"{str(path)!r} is not a readable baygo run: {e}") from e
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise RunFormatError(f"{str(path)!r} is not a baygo run (no 'baygo-run' marker)")
        if meta.get("format_version") != FORMAT_VERSION:
            raise RunFormatError(
                f"{str(path)!r} has run format version {meta.get('format_version')}, "
                f"this package reads version {FORMAT_VERSION}"
            )
        try:
            weights = None
            if "w_data" in arrays:
                m = arrays["mse"].shape[1]
                weights = sp.csr_array(
                    (arrays["w_data"], arrays["w_indices"], arrays["w_indptr"]), shape=(m, m)
                )
            steps = arrays["posterior_steps"].tolist()
            posteriors = {t: arrays["posteriors"][i] for i, t in enumerate(steps)}
            return cls(
                strategy=meta["strategy"],
                kind=meta["kind"],
                informative=meta["informative"],
                delta=meta["delta"],
                mse=arrays["mse"],
                entropy=arrays["entropy"],
                mean=arrays["mean"],
                choices=arrays.get("choices"),
                fixed_weights=weights,
                posteriors=posteriors,
                config=meta["config"],
            )
        except (KeyError, ValueError, IndexError) as e:
            raise RunFormatError(f"{str(path)!r} is a corrupt baygo run: {e}") from e

    def to_frame(self):
        """The per-step metrics as a tidy pandas DataFrame.

        Columns: strategy, step, agent, informative, mse, entropy.
        """
        import pandas as pd

        t, m = self.mse.shape
        return pd.DataFrame(
            {
                "strategy": self.strategy,
                "step": np.repeat(np.arange(t), m),
                "agent": np.tile(np.arange(m), t),
                "informative": np.tile(np.arange(m) == self.informative, t),
                "mse": self.mse.ravel(),
                "entropy": self.entropy.ravel(),
            }
        )


def _array_equal(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)


def _choice_weights(choice: np.ndarray, delta: float) -> sp.csr_array:
    m = len(choice)
    has = choice >= 0
    rows = np.concatenate([np.arange(m), np.flatnonzero(has)])
    cols = np.concatenate([np.arange(m), choice[has]])
    vals = np.concatenate([np.where(has, delta, 1.0), np.full(has.sum(), 1.0 - delta)])
    w = sp.csr_array((vals, (rows, cols)), shape=(m, m))
    w.sort_indices()
    return w


def write_series(graphs, path) -> Path:
    """Export a graph series for other tools.

    Parameters
    ----------
    graphs : Run or iterable of networkx.DiGraph
    path : str or os.PathLike
        ``.json``: node-link JSON, ``{"format": "baygo-graph-series", "graphs":
        [...]}`` with one NetworkX node-link document per step. ``.graphml``: one
        GraphML multi-digraph holding every step's edges, each with attributes
        ``step`` and ``weight`` (graph attribute ``steps`` = T).

    Returns
    -------
    pathlib.Path
        The file written (atomically).

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> g = nx.DiGraph([(0, 1)]); g.add_node(2)
    >>> p = write_series([g, g], tempfile.mkdtemp() + "/s.json")
    >>> [h.number_of_nodes() for h in read_series(p)]
    [3, 3]
    """
    path = Path(path)
    graphs = graphs.graphs() if isinstance(graphs, Run) else graphs
    if path.suffix == ".json":
        docs = [nx.node_link_data(g, edges="edges") for g in graphs]
        text = json.dumps({"format": SERIES_FORMAT, "graphs": docs})
        atomic_write(path, lambda fh: fh.write(text.encode()))
    elif path.suffix == ".graphml":
        multi = nx.MultiDiGraph()
        n = 0
        for n, g in enumerate(graphs, start=1):
            multi.add_nodes_from(g.nodes(data=True))
            multi.add_edges_from(
                (u, v, {"step": n - 1, "weight": float(d.get("weight", 1.0))})
                for u, v, d in g.edges(data=True)
            )
        multi.graph["steps"] = n
        atomic_write(path, lambda fh: nx.write_graphml(multi, fh))
    else:
        raise ValueError(f"path must end in .json or .graphml, got {str(path)!r}")
    return path


def read_series(path) -> list[nx.DiGraph]:
    """Read a graph series written by :func:`write_series` (or made elsewhere alike).

    Raises
    ------
    RunFormatError
        When the file is missing or not such a series.
    """
    path = Path(path)
    if not path.is_file():
        raise RunFormatError(f"no graph series at {str(path)!r}")
    try:
        if path.suffix == ".json":
            doc = json.loads(path.read_text())
            if not isinstance(doc, dict) or doc.get("format") != SERIES_FORMAT:
                raise RunFormatError(f"{str(path)!r} is not a baygo graph series")
            return [nx.node_link_graph(d, directed=True, edges="edges") for d in doc["graphs"]]
        if path.suffix == ".graphml":
            multi = nx.read_graphml(path, node_type=int, force_multigraph=True)
            steps = int(
                multi.graph.get(
                    "steps", 1 + max((d["step"] for *_, d in multi.edges(data=True)), default=-1)
                )
            )
            out = [nx.DiGraph() for _ in range(steps)]
            for g in out:
                g.add_nodes_from(multi.nodes(data=True))
            for u, v, d in multi.edges(data=True):
                out[int(d["step"])].add_edge(u, v, weight=float(d.get("weight", 1.0)))
            return out
    except (ValueError, KeyError, TypeError) as e:
        if isinstance(e, RunFormatError):
            raise
        raise RunFormatError(f"{str(path)!r} is not a readable graph series: {e}") from e
    raise RunFormatError(f"graph series must be .json or .graphml, got {str(path)!r}")
