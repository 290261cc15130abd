"""Time-varying physical graphs: who may talk to whom changes from step to step.

BayGo's ``physical=`` takes a fixed graph, a name, or one of these processes:

* a sequence of graphs (one per step, cycled) or a callable ``(t, rng) -> graph``;
* :class:`Gossip` (``"gossip"``) - a uniformly random perfect matching each step
  (with odd M one agent sits out);
* :class:`LinkFailures` (``"failures-P"``, on the complete graph, or any base graph)
  - each physical edge is down with probability P at each step, independently;
* :class:`OnePeerExponential` (``"exponential"``) - agent ``i`` may listen to
  ``i + 2^k`` and ``i - 2^k`` (mod M) with ``k = t mod ceil(log2 M)``: the
  one-peer exponential graphs of decentralised training.

Random processes draw from their own child of the run's rng (``rng.spawn(1)``), so
the data and the neighbour choices of a run see the same random stream whatever
the physical process. A run records every step's physical edges in
``run.records`` (``physical_ptr``, ``physical_src``, ``physical_dst``: step ``t``'s
edges ``src -> dst``, ``dst`` may hear ``src``, are entries ``ptr[t]:ptr[t+1]``), so
the graph of each step can be rebuilt with :func:`physical_at`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sp

from .._text import counted
from .._validate import check_real
from .physical import listen_matrix, warn_alone

__all__ = [
    "PHYSICAL_PRESETS",
    "Gossip",
    "LinkFailures",
    "OnePeerExponential",
    "PhysicalProcess",
    "physical_at",
    "physical_process",
]

#: Names of the time-varying presets understood by ``physical=``.
PHYSICAL_PRESETS = ("gossip", "failures-P", "exponential")


def _listen(rows, cols, m) -> sp.csr_array:
    h = sp.csr_array((np.ones(len(rows), dtype=bool), (rows, cols)), shape=(m, m))
    h.sum_duplicates()
    h.setdiag(False)
    h.eliminate_zeros()
    h.sort_indices()
    return h


class PhysicalProcess:
    """A physical graph per step: :meth:`at` gives step ``t``'s listen matrix."""

    name = "process"

    def bind(self, agents: int, rng: np.random.Generator) -> PhysicalProcess:
        """This process for a run of ``agents`` agents, drawing from ``rng``."""
        self.agents, self.rng = agents, rng
        return self

    def at(self, t: int) -> sp.csr_array:
        """``H[i, j]``: agent ``i`` may hear ``j`` at step ``t`` (boolean CSR)."""
        raise NotImplementedError

    def check_alone(self, steps: int) -> bool:
        """Warn, before the run, of agents that have no one to listen to at any of its
        ``steps`` steps, when the process knows its graphs in advance (True: checked;
        False: the run counts them as it goes, :func:`warn_alone_steps`)."""
        return False


@dataclass
class Gossip(PhysicalProcess):
    """A uniformly random perfect matching each step (random gossip).

    Examples
    --------
    >>> h = Gossip().bind(6, np.random.default_rng(0)).at(0)
    >>> h.sum(axis=1).tolist(), bool((h != h.T).nnz == 0)
    ([1, 1, 1, 1, 1, 1], True)
    """

    name: str = "gossip"

    def at(self, t: int) -> sp.csr_array:
        perm = self.rng.permutation(self.agents)
        half = self.agents // 2
        a, b = perm[:half], perm[half : 2 * half]
        return _listen(np.concatenate([a, b]), np.concatenate([b, a]), self.agents)


@dataclass
class LinkFailures(PhysicalProcess):
    """Each edge of a base graph is down with probability ``p`` at each step.

    Parameters
    ----------
    p : float
        Failure probability per edge and step, in [0, 1).
    base : networkx.Graph, optional
        The graph whose edges fail (default complete). An undirected edge fails
        in both directions at once.

    Examples
    --------
    >>> h = LinkFailures(0.0).bind(4, np.random.default_rng(0)).at(0)
    >>> int(h.nnz)
    12
    """

    p: float
    base: nx.Graph | None = None
    name: str = "failures"

    def __post_init__(self):
        check_real("p", self.p, low=0.0, high=1.0)
        if self.p >= 1:
            raise ValueError(f"p must be < 1 (an edge that never works), got {self.p!r}")

    def bind(self, agents, rng):
        super().bind(agents, rng)
        if self.base is None:
            h = sp.csr_array(np.ones((agents, agents), dtype=bool))
            directed = False
        else:
            h = listen_matrix(self.base, agents)
            directed = self.base.is_directed()
        coo = sp.coo_array(h)
        keep = (coo.row != coo.col) & (directed | (coo.row < coo.col))
        self.rows, self.cols, self.directed = coo.row[keep], coo.col[keep], directed
        return self

    def at(self, t: int) -> sp.csr_array:
        up = self.rng.random(len(self.rows)) >= self.p
        r, c = self.rows[up], self.cols[up]
        if not self.directed:
            r, c = np.concatenate([r, c]), np.concatenate([c, r])
        return _listen(r, c, self.agents)


@dataclass
class OnePeerExponential(PhysicalProcess):
    """Agent ``i`` may hear ``i + 2^k`` and ``i - 2^k`` (mod M), ``k = t mod ceil(log2 M)``.

    Examples
    --------
    >>> p = OnePeerExponential().bind(8, None)
    >>> [sorted(p.at(t).indices[p.at(t).indptr[0] : p.at(t).indptr[1]].tolist()) for t in range(4)]
    [[1, 7], [2, 6], [4], [1, 7]]
    """

    name: str = "exponential"

    def at(self, t: int) -> sp.csr_array:
        m = self.agents
        hop = 2 ** (t % max(1, math.ceil(math.log2(m))))
        i = np.arange(m)
        return _listen(np.concatenate([i, i]), np.concatenate([(i + hop) % m, (i - hop) % m]), m)


@dataclass
class _Sequence(PhysicalProcess):
    graphs: Sequence
    name: str = "sequence"

    def bind(self, agents, rng):
        super().bind(agents, rng)
        self.listens = [listen_matrix(g, agents) for g in self.graphs]
        return self

    def at(self, t: int) -> sp.csr_array:
        return self.listens[t % len(self.listens)]

    def check_alone(self, steps: int) -> bool:
        used = self.listens[:steps]  # cycled: the graphs a run of ``steps`` steps meets
        heard = np.zeros(self.agents, dtype=np.int64)
        for h in used:
            heard += np.diff(h.indptr) > 0
        warn_alone(
            f"the physical sequence given ({counted(len(self.listens), 'graph')}, cycled over "
            "the steps)",
            int(np.count_nonzero(heard == 0)),
            self.agents,
            span=f"in any of the {counted(len(used), 'graph')} a run of "
            f"{counted(steps, 'step')} meets",
            stacklevel=5,
        )
        return True


@dataclass
class _Callable(PhysicalProcess):
    make: Callable
    name: str = "callable"

    def at(self, t: int) -> sp.csr_array:
        return listen_matrix(self.make(t, self.rng), self.agents)


def _label(process: PhysicalProcess) -> str:
    """A process' name as ``physical=`` takes it (``failures-0.5``)."""
    return f"failures-{process.p}" if isinstance(process, LinkFailures) else process.name


def warn_alone_steps(process: PhysicalProcess, heard, steps: int) -> None:
    """After a run on ``process`` (one whose graphs are not known in advance: a
    callable, a preset), :func:`warn_alone` of the agents that had no one to listen to
    at any of its ``steps`` steps; ``heard[i]`` counts the steps agent ``i`` had some."""
    if isinstance(process, _Callable):
        what = "the physical process given (a callable)"
    else:
        what = f"the physical process {_label(process)!r}"
    warn_alone(
        what,
        int(np.count_nonzero(heard == 0)),
        len(heard),
        span=f"at any of the {counted(steps, 'step')} run",
        stacklevel=4,
    )


def physical_process(physical) -> PhysicalProcess | None:
    """The time-varying process ``physical`` stands for, or None for a static graph.

    Parameters
    ----------
    physical : PhysicalProcess, str, sequence of networkx.Graph, callable or other
        A process; a preset name (``"gossip"``, ``"failures-P"``,
        ``"exponential"``); a sequence of graphs (cycled); a callable
        ``(t, rng) -> graph``. Anything else (a graph, another name, None) is
        static: None is returned.

    Examples
    --------
    >>> physical_process("failures-0.25").p
    0.25
    >>> physical_process("regular-4") is None
    True
    """
    if isinstance(physical, PhysicalProcess):
        return physical
    if isinstance(physical, str):
        key = physical.lower()
        if key == "gossip":
            return Gossip()
        if key == "exponential":
            return OnePeerExponential()
        if key.startswith("failures-"):
            try:
                return LinkFailures(float(key.split("-", 1)[1]))
            except ValueError:
                raise ValueError(
                    f"physical 'failures-P' needs a probability P in [0, 1), got {physical!r}"
                ) from None
        return None
    if callable(physical) and not isinstance(physical, nx.Graph):
        return _Callable(physical)
    if isinstance(physical, Sequence) and not isinstance(physical, nx.Graph):
        if not physical or not all(isinstance(g, nx.Graph) for g in physical):
            raise TypeError("physical as a sequence must hold networkx graphs, one per step")
        return _Sequence(list(physical))
    return None


def physical_at(run, t: int) -> nx.DiGraph:
    """The physical graph of step ``t`` of a BayGo run on a physical graph.

    Edge ``(j, i)`` means ``i`` may hear ``j`` (docs/design.md). A static
    physical graph is the same at every step; a run on the complete graph keeps no
    edges (ValueError).

    Examples
    --------
    >>> import baygo_graph as bg
    >>> from baygo_graph.strategies import BayGo
    >>> run = bg.simulate(BayGo(physical="gossip"), agents=6, steps=3, rng=0,
    ...                   model=bg.models.LinearRegression(grid=11), data=bg.synthetic_bodyfat())
    >>> g = physical_at(run, 1)
    >>> sorted(d for _, d in g.in_degree())
    [1, 1, 1, 1, 1, 1]
    """
    recs = run.records
    if "physical_src" not in recs:
        raise ValueError("run has no physical graph records (a complete physical graph?)")
    ptr = recs.get("physical_ptr")
    lo, hi = (0, len(recs["physical_src"])) if ptr is None else (ptr[t], ptr[t + 1])
    g = nx.DiGraph()
    g.add_nodes_from(range(run.n_agents))
    g.add_edges_from(
        zip(recs["physical_src"][lo:hi].tolist(), recs["physical_dst"][lo:hi].tolist(), strict=True)
    )
    return g
