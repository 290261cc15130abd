"""Agent splits for very many agents: a shared pool of samples, O(M + N) memory.

:func:`baygo_graph.data.paper_split` stores every agent's samples in a padded (M,
n_max) array and needs at least one shared sample per non-informative agent;
:func:`shared_split` gives the same split where that works, and deals the shared
samples round-robin beyond (M = 10^6 agents on the bodyfat data's ~50 shared
samples), in memory that grows with M + N, not M x n_max.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validate import check_int
from .core import SplitBase, paper_split

__all__ = ["SharedSplit", "shared_split"]


@dataclass(frozen=True, eq=False, kw_only=True)
class SharedSplit(SplitBase):
    """The paper's split in O(M + N) memory: a pool of samples and each agent's slice.

    Agent ``i`` holds the samples ``pool[members[offsets[i] : offsets[i] + counts[i]]]``.

    Attributes
    ----------
    x_pool, y_pool : numpy.ndarray, shape (N,)
        Standardised training samples.
    members : numpy.ndarray of int, shape (sum(counts),)
    offsets, counts : numpy.ndarray of int, shape (M,)
    x_test, y_test : numpy.ndarray
    mean, std, sigma_ls, informative
        As in :class:`baygo_graph.data.SplitBase`.

    Examples
    --------
    >>> from baygo_graph.data import synthetic_bodyfat
    >>> s = shared_split(synthetic_bodyfat(), agents=5, rng=0)
    >>> [a.shape for a in s.draw(3, np.random.default_rng(0))]
    [(5, 3), (5, 3)]
    """

    x_pool: np.ndarray = field(repr=False)
    y_pool: np.ndarray = field(repr=False)
    members: np.ndarray = field(repr=False)
    offsets: np.ndarray = field(repr=False)

    def draw(self, batch: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """Each agent's mini-batch, with replacement from its own samples, shape (M, batch).

        The same draws and values as :func:`baygo_graph.learning.draw_batches` on
        the padded split.
        """
        idx = (rng.random((self.agents, batch)) * self.counts[:, None]).astype(np.intp)
        idx += self.offsets[:, None]
        pick = self.members[idx]
        return self.x_pool[pick], self.y_pool[pick]

    def pooled(self) -> tuple[np.ndarray, np.ndarray]:
        """Every training sample once: ``(x, y)`` of shape (N,)."""
        return self.x_pool, self.y_pool


def shared_split(data, *, agents: int, informative: int = 0, rng=None, **kwargs) -> SharedSplit:
    """:func:`baygo_graph.data.paper_split` in O(M + N) memory, for any number of agents.

    While there are at least as many shared samples as non-informative agents,
    the split is exactly ``paper_split``'s (same draws from ``rng``, same samples
    per agent). With more agents than that (e.g. M = 10^6 agents and the
    bodyfat data's ~50 shared samples, where ``paper_split`` refuses), every
    non-informative agent holds one sample, dealt round-robin from the same
    random order: each sample is held by ``floor`` or ``ceil`` of
    ``(M - 1) / N_shared`` agents.

    Parameters
    ----------
    data, agents, informative, rng
        As in ``paper_split``; ``kwargs`` are its other options.

    Examples
    --------
    >>> from baygo_graph.data import synthetic_bodyfat
    >>> s = shared_split(synthetic_bodyfat(), agents=100_000, rng=0)
    >>> s.agents, int(s.counts[1:].max()), s.members.nbytes < 10**6
    (100000, 1, True)
    """
    check_int("agents", agents, minimum=2)
    if not 0 <= informative < agents:
        raise ValueError(f"informative must be an agent id in [0, {agents}), got {informative!r}")
    # Two agents: row 0 the informative samples, row 1 all shared ones in the random
    # order paper_split deals them from; the draws do not depend on the agent count.
    two = paper_split(data, agents=2, informative=0, rng=rng, **kwargs)
    n_info, n_rest = (int(c) for c in two.counts)
    x_pool = np.concatenate([two.x[0, :n_info], two.x[1, :n_rest]])
    y_pool = np.concatenate([two.y[0, :n_info], two.y[1, :n_rest]])
    others = agents - 1
    if others <= n_rest:  # np.array_split sizes: the first n_rest % others get one more
        size, extra = divmod(n_rest, others)
        sizes = np.full(others, size, dtype=np.int64)
        sizes[:extra] += 1
        rest_members = np.arange(n_rest, dtype=np.int64)
    else:  # round-robin: one sample each
        sizes = np.ones(others, dtype=np.int64)
        rest_members = np.arange(others, dtype=np.int64) % n_rest
    counts = np.insert(sizes, informative, n_info)
    members = np.concatenate([np.arange(n_info), n_info + rest_members])
    # informative agent's slice first in `members`, then the others in id order
    rest_offsets = n_info + np.cumsum(sizes) - sizes
    offsets = np.insert(rest_offsets, informative, 0)
    return SharedSplit(
        x_pool=x_pool,
        y_pool=y_pool,
        members=members,
        offsets=offsets,
        counts=counts,
        x_test=two.x_test,
        y_test=two.y_test,
        mean=two.mean,
        std=two.std,
        sigma_ls=two.sigma_ls,
        informative=int(informative),
    )
