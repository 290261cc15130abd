"""The record of one run: compact per-step arrays, its graph series, save/load.

A run keeps per-step metrics (T x M), its communication graph series
(:mod:`baygo_graph.series`: per-step choices, a fixed W, or weighted edge lists;
None for a centralised learner) and posteriors only at the steps asked for.
Graphs are made from the compact arrays when asked for. The file format is
described in :mod:`baygo_graph.io.npz`; how a run maps to the file's arrays and
back is :mod:`baygo_graph._run_arrays`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse as sp

from ._run_arrays import arrays_equal, head_records, run_arrays, run_fields, run_meta
from ._text import counted, quoted_path
from ._validate import check_int
from .exceptions import RunFormatError
from .io.npz import RUN_FILE, read_run_file, write_run_file
from .io.runs import find_runs
from .series import ChoiceSeries, GraphSeries

__all__ = [
    "MIXED",
    "RUN_FILE",
    "SETUP_COLUMNS",
    "Run",
    "check_no_copies",
    "check_same_setup",
    "load_runs",
]


@dataclass(frozen=True, eq=False)
class Run:
    """What one run of :func:`baygo_graph.simulate` produced.

    Steps are numbered ``t = 0 .. T-1``; row ``t`` of every per-step array is the
    state after iteration ``t + 1`` (local update, graph step, pooling).

    Attributes
    ----------
    strategy : str
        Strategy name (``"baygo"``, ``"complete"``, ``"posm"``, ...).
    informative : int
        Id of the informative agent.
    delta : float
        Self-weight of the pooling step.
    mse : numpy.ndarray, shape (T, M)
        The model's test loss of each agent (:attr:`loss`, named by
        :attr:`loss_name`): the test MSE of the posterior-mean prediction
        (standardised units) for the linear model, whence the field's name.
    entropy : numpy.ndarray, shape (T, M)
        Entropy (nats) of each agent's posterior on the grid.
    mean : numpy.ndarray, shape (T, M, 2)
        Posterior mean of (intercept, slope).
    series : GraphSeries or None
        The communication graph of every step (None: a centralised learner).
    posteriors : dict of int to numpy.ndarray
        Log-posteriors (M, K) at the steps the caller asked to keep.
    records : dict of str to numpy.ndarray
        What the run's monitors measured (:mod:`baygo_graph.monitors`), e.g.
        ``"theorem_lhs"`` (T, M).
    config : dict
        Every parameter of the run, the seed, the data source and the package
        version (JSON-serialisable).
    """

    strategy: str
    informative: int
    delta: float
    mse: np.ndarray = field(repr=False)
    entropy: np.ndarray = field(repr=False)
    mean: np.ndarray = field(repr=False)
    series: GraphSeries | None = field(default=None, repr=False)
    posteriors: dict = field(default_factory=dict, repr=False)
    records: dict = field(default_factory=dict, repr=False)
    config: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if self.series is not None:  # the series carries the run's labels
            labelled = dataclasses.replace(
                self.series,
                n_steps=self.mse.shape[0],
                informative=int(self.informative),
                synthetic=self.synthetic,
            )
            object.__setattr__(self, "series", labelled)

    @classmethod
    def from_choices(cls, choices, *, delta: float = 0.5, informative: int = 0) -> Run:
        """A BayGo-like run holding only a choice array made elsewhere (metrics are zeros).

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
        series = ChoiceSeries.from_choices(choices, delta=delta)
        t, m = series.n_steps, series.n_agents
        if not 0 <= informative < m:
            raise ValueError(f"informative must be an agent id in [0, {m}), got {informative!r}")
        zeros = np.zeros((t, m))
        return cls(
            strategy="baygo",
            informative=int(informative),
            delta=float(delta),
            mse=zeros,
            entropy=zeros.copy(),
            mean=np.zeros((t, m, 2)),
            series=series,
        )

    def head(self, steps: int) -> Run:
        """The run's first ``steps`` steps (a run of T steps is the head of a longer run
        on the same seed: every step draws from the rng in the same order).

        Examples
        --------
        >>> run = Run.from_choices([[1, 0], [-1, 0], [1, -1]])
        >>> run.head(2).n_steps, run.head(2).choices.tolist()
        (2, [[1, 0], [-1, 0]])
        """
        check_int("steps", steps, minimum=1, maximum=self.n_steps)
        series = None if self.series is None else self.series.head(steps)
        cut = slice(0, steps)
        return dataclasses.replace(
            self,
            mse=self.mse[cut],
            entropy=self.entropy[cut],
            mean=self.mean[cut],
            series=series,
            posteriors={t: p for t, p in self.posteriors.items() if t < steps},
            records=head_records(self.records, steps, self.n_steps),
            config=self.config | {"steps": steps},
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
    def loss(self) -> np.ndarray:
        """The model's per-step test loss (T, M) (the ``mse`` field under its general name)."""
        return self.mse

    @property
    def loss_name(self) -> str:
        """What :attr:`loss` is (``"mse"``, ``"log_loss"``, ``"sq_error"``, ...), from the model."""
        return str(self.config.get("loss", "mse"))

    @property
    def data_description(self) -> str:
        """The data in a few words: the source, and "synthetic" when it was."""
        return f"{self.data_source} (synthetic)" if self.synthetic else self.data_source

    @property
    def synthetic(self) -> bool:
        """True when the run used synthetic data."""
        return bool(self.config.get("data", {}).get("synthetic", False))

    @property
    def data_source(self) -> str:
        """Where the data came from (a path, ``"dataframe"`` or a synthetic label)."""
        return str(self.config.get("data", {}).get("source", "unknown"))

    @property
    def choices(self) -> np.ndarray | None:
        """The (T, M) chosen neighbours of a choice series (-1: none), else None."""
        return None if self.series is None else self.series.choices

    @property
    def fixed_weights(self) -> sp.csr_array | None:
        """W of a fixed-graph run (the same every step), else None."""
        return None if self.series is None else self.series.fixed

    @property
    def kind(self) -> str:
        """How the series is stored: ``"dynamic"``, ``"fixed"``, ``"edges"``, or ``"cen"``."""
        return "cen" if self.series is None else self.series.arrays()[0]

    def __eq__(self, other) -> bool:
        if not isinstance(other, Run):
            return NotImplemented
        mine, theirs = run_arrays(self), run_arrays(other)
        return (
            (self.strategy, self.informative, self.delta, self.config)
            == (other.strategy, other.informative, other.delta, other.config)
            and mine.keys() == theirs.keys()
            and all(arrays_equal(mine[k], theirs[k]) for k in mine)
        )

    __hash__ = None

    # -- graphs ----------------------------------------------------------------
    def _graph_series(self) -> GraphSeries:
        if self.series is None:
            raise ValueError(
                f"the centralised learner ({self.strategy}) has no communication graph"
            )
        return self.series

    def _check_step(self, t) -> int:
        if isinstance(t, bool) or not isinstance(t, int | np.integer):
            raise TypeError(f"step must be an int, got {type(t).__name__}")
        if not -self.n_steps <= t < self.n_steps:
            raise IndexError(f"step {t} out of range for a run of {counted(self.n_steps, 'step')}")
        return int(t) % self.n_steps

    def weights(self, t: int) -> sp.csr_array:
        """The row-stochastic weight matrix W of step ``t`` (row i: agent i's weights).

        Raises
        ------
        ValueError
            For a centralised learner, which has no communication graph.
        """
        t = self._check_step(t)
        return self._graph_series().weights(t)

    def step_edges(self, start: int = 0, stop: int | None = None):
        """Every edge of steps ``start .. stop-1`` as flat arrays, self-loops excluded.

        Returns
        -------
        step, src, dst, weight : numpy.ndarray
            Edge ``(src[e], dst[e])`` of step ``step[e]``: ``dst`` receives from
            ``src`` with weight ``w[dst, src]`` (docs/design.md).
        """
        return self._graph_series().step_edges(start, stop)

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
        >>> from baygo_graph.models import LinearRegression
        >>> run = simulate("baygo", agents=4, steps=3, model=LinearRegression(grid=11), rng=0,
        ...                data=synthetic_bodyfat())
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
        if self.series is None:
            return np.zeros(self.n_agents, dtype=np.int64)
        _, src, _, _ = self.series.step_edges()
        return np.bincount(src, minlength=self.n_agents)

    def summary(self) -> dict:
        """A short JSON-serialisable summary of the run.

        Examples
        --------
        >>> from baygo_graph import simulate, synthetic_bodyfat
        >>> from baygo_graph.models import LinearRegression
        >>> run = simulate("nocol", agents=3, steps=2, model=LinearRegression(grid=9), rng=0,
        ...                data=synthetic_bodyfat())
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
            "loss": self.loss_name,
            "final_mse_informative": float(final[self.informative]),
            "final_mse_others_mean": float(others.mean()),
            "final_mse": final.tolist(),
        }
        if self.choices is not None:
            out["chosen_counts"] = self.chosen_counts().tolist()
        return out

    # -- storage ---------------------------------------------------------------
    def save(self, path, *, overwrite: bool = False) -> Path:
        """Write the run to ``path`` (a ``.npz`` file, or a folder that gets ``run.npz``).

        Returns the file written. The write is atomic.

        Raises
        ------
        FileExistsError
            When a run file is already there and ``overwrite`` is False.
        """
        return write_run_file(path, run_meta(self), run_arrays(self), overwrite=overwrite)

    @classmethod
    def load(cls, path) -> Run:
        """Read a run written by :meth:`save` (a ``.npz`` file or its folder).

        Raises
        ------
        RunFormatError
            When the file is missing, not a saved run, or corrupt.
        """
        meta, arrays = read_run_file(path)
        try:
            return cls(**run_fields(meta, arrays))
        except (KeyError, ValueError, IndexError) as e:
            raise RunFormatError(f"{quoted_path(path, 120)} is a corrupt baygo run: {e}") from e

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


#: What runs must share to be summarised together (else refused, or grouped).
SETUP_COLUMNS = ("steps", "agents", "data")
#: Values of ``mixed=``: refuse runs of different setups, or summarise each setup apart.
MIXED = ("refuse", "group")


def _setup(run) -> tuple:
    return (run.n_steps, run.n_agents, run.data_source)


def check_same_setup(runs, *, mixed: str = "refuse") -> dict:
    """The setups (T, M, data) of ``runs`` with their run labels; ValueError when they
    differ and ``mixed="refuse"``.

    Parameters
    ----------
    runs : mapping of label -> Run, or sequence of Run
    mixed : {"refuse", "group"}, default "refuse"

    Returns
    -------
    dict
        ``{(steps, agents, data): [label, ...]}`` in order of appearance.

    Examples
    --------
    >>> from baygo_graph import Run
    >>> runs = {"a": Run.from_choices([[1, 0]]), "b": Run.from_choices([[1, 0], [1, 0]])}
    >>> try:
    ...     check_same_setup(runs)
    ... except ValueError as e:
    ...     print(str(e)[:52])
    the runs differ in steps (1 run of T=1, M=2, data un
    >>> len(check_same_setup(runs, mixed="group"))
    2
    """
    if mixed not in MIXED:
        raise ValueError(f"mixed must be one of {MIXED}, got {mixed!r}")
    check_no_copies(runs)
    groups: dict = {}
    for label, run in labelled_runs(runs):
        groups.setdefault(_setup(run), []).append(label)
    if len(groups) > 1 and mixed == "refuse":
        keys = list(groups)
        differ = [name for k, name in enumerate(SETUP_COLUMNS) if len({g[k] for g in keys}) > 1]
        parts = "; ".join(
            f"{counted(len(v), 'run')} of T={t}, M={m}, data {d} (e.g. {v[0]})"
            for (t, m, d), v in groups.items()
        )
        raise ValueError(
            f"the runs differ in {' and '.join(differ)} ({parts}): a median over them would "
            "mix different experiments; analyse each set apart, or group them "
            "(mixed='group'; CLI --group) to summarise each setup on its own"
        )
    return groups


def _identity(run) -> tuple:
    """What makes two runs one: the same strategy and set-up and the same arrays (a
    copy of a run folder, a backup), compared by a digest of every stored array."""
    digest = hashlib.blake2b(digest_size=16)
    for name, value in sorted(run_arrays(run).items()):
        a = np.ascontiguousarray(value)
        digest.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        digest.update(a.view(np.uint8).ravel() if a.size else b"")
    config = json.dumps(run.config, sort_keys=True, default=str)
    return run.strategy, run.informative, run.delta, config, digest.hexdigest()


def check_no_copies(runs) -> None:
    """ValueError when two of ``runs`` are one run (the same strategy, set-up and
    arrays: a copied run folder): a median would weigh it more than once.

    Examples
    --------
    >>> from baygo_graph import Run
    >>> run = Run.from_choices([[1, 0]])
    >>> check_no_copies({"a": run, "b": Run.from_choices([[1, 1]])})
    >>> try:
    ...     check_no_copies({"seed0": run, "seed0 copy": run})
    ... except ValueError as e:
    ...     print(str(e)[:60])
    runs 'seed0' and 'seed0 copy' are one run (the same strategy
    """
    seen: dict = {}
    for label, run in labelled_runs(runs):
        seen.setdefault(_identity(run), []).append(label)
    copies = [labels for labels in seen.values() if len(labels) > 1]
    if copies:
        names = copies[0]
        listed = ", ".join(repr(x) for x in names[:-1][:4]) + f" and {names[-1]!r}"
        more = (
            f" ({counted(len(copies) - 1, 'other set')} of copies too)" if len(copies) > 1 else ""
        )
        raise ValueError(
            f"runs {listed} are one run (the same strategy, set-up and arrays: a copied "
            f"run folder){more}: a median would count it {len(names)} times; remove the "
            "copies or analyse them apart"
        )


def labelled_runs(runs) -> list[tuple[str, object]]:
    if isinstance(runs, Mapping):
        return [
            ("/".join(map(str, k)) if isinstance(k, tuple) else str(k), r) for k, r in runs.items()
        ]
    return [(str(k), r) for k, r in enumerate(runs)]


def load_runs(paths, *, mixed: str = "refuse") -> dict:
    """Load the runs under ``paths`` (see :func:`baygo_graph.io.runs.find_runs`).

    Parameters
    ----------
    paths : path or iterable of paths
    mixed : {"refuse", "group"}, default "refuse"
        Runs of different steps (T), agents (M) or data: ValueError naming each
        setup and a run of it (medians over them would mix experiments), or
        load them all (``"group"``: tables then summarise each setup apart).

    Returns
    -------
    dict
        ``{label: Run}``, label = the run's folder name (or ``.npz`` file stem),
        in the order found; a folder name that repeats gets its parent prefixed.

    Examples
    --------
    >>> import tempfile
    >>> from baygo_graph import simulate, synthetic_bodyfat
    >>> from baygo_graph.io.runs import save_runs
    >>> from baygo_graph.models import LinearRegression
    >>> run = simulate("nocol", agents=2, steps=1, model=LinearRegression(grid=5), rng=0,
    ...                data=synthetic_bodyfat())
    >>> d = tempfile.mkdtemp()
    >>> _ = save_runs({("nocol", 0): run}, d)
    >>> list(load_runs([d]))
    ['nocol-seed0']
    """
    out = {}
    for f in find_runs(paths):
        label = f.parent.name if f.name == RUN_FILE else f.stem
        if label in out:
            label = str(f.parent if f.name == RUN_FILE else f.with_suffix(""))
        out[label] = Run.load(f)
    check_same_setup(out, mixed=mixed)
    return out
