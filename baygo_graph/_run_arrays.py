"""A run's arrays by their names in the run file, and back: the storage side of a Run.

:func:`run_meta` and :func:`run_arrays` give what :meth:`Run.save
<baygo_graph.Run.save>` writes (:mod:`baygo_graph.io.npz`); :func:`run_fields`
turns what :meth:`Run.load <baygo_graph.Run.load>` reads back into the keyword
arguments of :class:`~baygo_graph.Run`; :func:`head_records` cuts the monitor
records for :meth:`Run.head <baygo_graph.Run.head>`. The array names: ``mse``,
``entropy``, ``mean``; the series' arrays
(:meth:`~baygo_graph.series.GraphSeries.arrays`); ``posterior_steps`` and
``posteriors``; ``rec_<name>`` for each monitor record. These functions only
read a run's attributes: they do not import :mod:`baygo_graph.run`.
"""

from __future__ import annotations

import numpy as np

from .series import series_from_arrays

__all__ = ["arrays_equal", "head_records", "run_arrays", "run_fields", "run_meta"]


def run_meta(run) -> dict:
    """The JSON part of a run file: strategy, series kind, informative agent, delta, config."""
    return {
        "strategy": run.strategy,
        "kind": run.kind,
        "informative": run.informative,
        "delta": run.delta,
        "config": run.config,
    }


def run_arrays(run) -> dict:
    """Every array of a run, by its name in the run file.

    Examples
    --------
    >>> from baygo_graph import Run
    >>> sorted(run_arrays(Run.from_choices([[1, 0]])))
    ['choices', 'entropy', 'mean', 'mse', 'posterior_steps']
    """
    arrays = {"mse": run.mse, "entropy": run.entropy, "mean": run.mean}
    if run.series is not None:
        arrays |= run.series.arrays()[1]
    steps = sorted(run.posteriors)
    arrays["posterior_steps"] = np.array(steps, dtype=np.int64)
    if steps:
        arrays["posteriors"] = np.stack([run.posteriors[t] for t in steps])
    arrays |= {f"rec_{k}": v for k, v in run.records.items()}
    return arrays


def run_fields(meta: dict, arrays: dict) -> dict:
    """The keyword arguments of ``Run`` from a run file's ``(meta, arrays)``.

    Raises ``KeyError``, ``ValueError`` or ``IndexError`` for a file that lacks
    or garbles a field (:meth:`Run.load <baygo_graph.Run.load>` reports them as
    a :class:`~baygo_graph.exceptions.RunFormatError`).

    Examples
    --------
    >>> from baygo_graph import Run
    >>> run = Run.from_choices([[1, 0]])
    >>> Run(**run_fields(run_meta(run), run_arrays(run))) == run
    True
    """
    mse = arrays["mse"]
    series = None
    if meta["kind"] != "cen":
        series = series_from_arrays(
            meta["kind"],
            arrays,
            n_steps=mse.shape[0],
            n_agents=mse.shape[1],
            # only a choice series carries delta (its weights); a fixed or edge-list
            # series holds its weights, with delta None, as the run made it
            delta=meta["delta"] if meta["kind"] == "dynamic" else None,
        )
    steps = arrays["posterior_steps"].tolist()
    posteriors = {t: arrays["posteriors"][i] for i, t in enumerate(steps)}
    return {
        "strategy": meta["strategy"],
        "informative": meta["informative"],
        "delta": meta["delta"],
        "mse": mse,
        "entropy": arrays["entropy"],
        "mean": arrays["mean"],
        "series": series,
        "posteriors": posteriors,
        "records": {k[4:]: v for k, v in arrays.items() if k.startswith("rec_")},
        "config": meta["config"],
    }


def head_records(records: dict, steps: int, n_steps: int) -> dict:
    """Per-step records cut to the first ``steps`` steps (the physical edge lists too)."""
    out = {k: v[:steps] for k, v in records.items() if v.shape[:1] == (n_steps,)}
    if "physical_ptr" in records:
        ptr = records["physical_ptr"][: steps + 1]
        out["physical_ptr"] = ptr
        out |= {k: records[k][: ptr[-1]] for k in ("physical_src", "physical_dst")}
    return out


def arrays_equal(a, b) -> bool:
    """Same shape, dtype and values (how two runs' arrays compare)."""
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)
