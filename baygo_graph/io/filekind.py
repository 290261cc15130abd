"""What a file looks like, for errors that say so ("x.gexf is a GEXF file ...").

A reader given a file of another kind (a GEXF export where a run is expected, a
``.npy`` array saved under a run file's name) says what the file is and what reads
what, instead of a parser's complaint ("File is not a zip file").
"""

from __future__ import annotations

from pathlib import Path

from .._magic import head_kind, packed_kind
from .._text import quoted_path

__all__ = [
    "OWN_OUTPUTS",
    "describe_file",
    "folder_outputs_text",
    "head_kind",
    "misnamed_message",
    "missing_message",
    "not_a_run_message",
    "own_output_message",
    "packed_kind",
]

#: What a file that is not a run looks like: (marker in its first bytes, description).
_KINDS = (
    (b"\x93NUMPY", "a .npy file (one numpy array; a run file is a .npz archive)"),
    (b"<gexf", "a GEXF file (a graph series: read_series reads it)"),
    (b"<graphml", "a GraphML file"),
    (b'"format": "baygo-graph-series"', "a JSON graph series"),
)


#: The name of the record an output folder keeps of the files baygo wrote there
#: (``io.atomic.RECORD_NAME``: this module is below it).
_RECORD = ".baygo-files.json"
_TABLE = ("the results table of a comparison (a row per strategy, seed, step and agent), "
          "not an edge list: load it with baygo_graph.io.results.load_results(path) or "
          "baygo_graph.analysis.Comparison.read_{kind}(path)")  # fmt: skip
_REPORT = (
    "a report baygo wrote for you to read, not an input: baygo analyze reads runs "
    "(baygo run --out DIR, baygo compare --save-runs DIR) and graph series"
)
#: Files baygo's commands write that no command reads, and what each is.
OWN_OUTPUTS = {
    "results.parquet": _TABLE.format(kind="parquet"),
    "results.csv": _TABLE.format(kind="csv"),
    **dict.fromkeys(("summary.json", "summary.md", "summary.csv", "report.md", "report.txt",
                     "report.json", "table.csv", "horizon.csv", "regimes.csv", "theorem.csv",
                     "smallest_b.csv"), _REPORT),
}  # fmt: skip


def _recorded(path: Path) -> bool:
    """Whether ``path``'s folder's record lists it (baygo wrote it there)."""
    import json

    try:
        with open(path.parent / _RECORD, encoding="utf-8") as fh:
            files = json.load(fh).get("files", {})
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(files, dict) and path.name in files


def _results_parquet(path: Path) -> bool:
    """Whether ``path`` is a Parquet results table baygo wrote (its footer's mark)."""
    if packed_kind(path) is None or packed_kind(path)[1] != ".parquet":
        return False
    try:
        import pyarrow.parquet as pq

        return b"baygo.results" in (pq.read_schema(path).metadata or {})
    except Exception:  # noqa: BLE001 - not readable as Parquet: the reader names why
        return False


def own_output_message(path) -> str | None:
    """One line for an output of baygo that no command reads (a results table, a report,
    a summary) handed to a reader, saying what it is and what reads it; None for any
    other path (a run, a series, a user's file, or a file of that name baygo did not
    write).

    Examples
    --------
    >>> import json, tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "summary.md").write_text("# summary"), (d / "notes.md").write_text("mine")
    >>> _ = (d / ".baygo-files.json").write_text(json.dumps({"files": {"summary.md": "0"}}))
    >>> print(own_output_message(d / "summary.md").split(": ", 1)[1][:40])
    an output of baygo: a report baygo wrote
    >>> own_output_message(d / "notes.md") is None
    True
    """
    path = Path(path)
    what = OWN_OUTPUTS.get(path.name)
    if not path.is_file() or (what is None and not path.name.endswith(".parquet")):
        return None
    if _results_parquet(path):
        what = OWN_OUTPUTS["results.parquet"]
    elif what is None or not _recorded(path):
        return None
    return f"{quoted_path(path)}: an output of baygo: {what}"


def folder_outputs_text(folder) -> str:
    """``": it holds baygo's outputs (summary.md, results.parquet), ..."`` for a folder
    whose record lists files but no run, else ``""``: what to say after "no saved run"."""
    folder = Path(folder)
    names = sorted(n for n in OWN_OUTPUTS if (folder / n).is_file() and _recorded(folder / n))
    if not names:
        return ""
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return (f": it holds baygo's outputs ({shown}), not runs; save runs with baygo run --out "
            "DIR or compare --save-runs DIR"
            + ("; load results.parquet with baygo_graph.io.results.load_results"
               if "results.parquet" in names else ""))  # fmt: skip


def misnamed_message(path, *, compression: str | None = None, renamable: bool = True):
    """One line for a file whose bytes are of another kind than its name says (gzip data
    named ``.txt``, xz data named ``.gz``, a Parquet file named ``.csv``), saying what it
    is and the name to give it (``renamable``: a name with that suffix is read) or how
    to unpack it; None when the name fits (or nothing packed is seen).

    Examples
    --------
    >>> import gzip, tempfile
    >>> p = Path(tempfile.mkdtemp()) / "edges.txt"
    >>> _ = p.write_bytes(gzip.compress(b"1 2 100\\n"))
    >>> print(misnamed_message(p).split(": ", 1)[1])
    name it edges.txt.gz (or decompress it: gzip -d FILE)
    """
    path = Path(path)
    kind = packed_kind(path)
    if kind is None:
        return None
    what, suffix, how = kind
    if compression is not None and path.name.lower().endswith(suffix):
        return None  # named as it is
    name = quoted_path(path)
    base = path.name
    if compression is not None:  # another codec's suffix: swap it
        base = base[: base.rindex(".")]
    if suffix == ".parquet":
        stem = base.split(".")[0] or base
        return f"{name} is {what}: name it {stem}.parquet"
    if suffix in (".zip", ".7z"):
        return f"{name} is {what}: extract it ({how}) and pass the file inside"
    if not renamable:
        return (
            f"{name} is {what}, which this reader does not take: decompress it ({how} FILE) "
            "and pass the plain file"
        )
    return f"{name} is {what}: name it {base}{suffix} (or decompress it: {how} FILE)"


def describe_file(path) -> str | None:
    """What the file at ``path`` looks like, from its first bytes, when it is one of
    the other files this package writes or reads.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    str or None
        ``"a GEXF file (...)"``, ``"a GraphML file"``, ``"a JSON graph series"``,
        ``"a .npy file (...)"``, ``"a JSON file"``, ``"an XML file"``, ``"an empty
        file"``; None for a zip (a ``.npz``, maybe corrupt), anything else or an
        unreadable path.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> p = Path(tempfile.mkdtemp()) / "x.gexf"
    >>> _ = p.write_text('<?xml version="1.0"?><gexf version="1.2"></gexf>')
    >>> describe_file(p)
    'a GEXF file (a graph series: read_series reads it)'
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(1024)
    except OSError:
        return None
    if head.startswith(b"PK"):
        return None
    kind = next((k for marker, k in _KINDS if marker in head), None)
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if kind is None and text[:1] in (b"{", b"["):
        kind = "a JSON file"
    elif kind is None and text[:1] == b"<":
        kind = "an XML file"
    return "an empty file" if kind is None and not head else kind


def not_a_run_message(path) -> str | None:
    """Why ``path`` is not a run file, when it is a file of another known kind.

    For :func:`baygo_graph.io.npz.read_run_file`, instead of "not a readable .npz".

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> p = Path(tempfile.mkdtemp()) / "s.json"
    >>> _ = p.write_text('{"format": "baygo-graph-series", "graphs": []}')
    >>> print(not_a_run_message(p).split(": ")[0])
    '...s.json' is a JSON graph series, not a readable .npz run file
    """
    kind = describe_file(path)
    if kind is None:
        return None
    return (
        f"{str(path)!r} is {kind}, not a readable .npz run file: runs are read from run "
        "folders and .npz run files (Run.load), graph series from .json, .graphml or .gexf "
        "files and edge lists (read_series); baygo analyze reads all of these"
    )


def missing_message(path, what: str, plural: str) -> str:
    """Why nothing is read at ``path``: ``no {what} at 'p'`` when nothing is there; for
    a FIFO, device or socket (never read: it may never end), that it is not a regular
    file, in one wording for every kind of input.

    Examples
    --------
    >>> missing_message("/dev/null", "graph series", "graph series").split(":")[0]
    "'/dev/null' is not a regular file (a FIFO, device or socket)"
    >>> missing_message("/no/such.json", "graph series", "graph series")
    "no graph series at '/no/such.json'"
    """
    shown = quoted_path(path)
    target = Path(path)
    if target.exists() and not target.is_dir() and not target.is_file():
        return (
            f"{shown} is not a regular file (a FIFO, device or socket): baygo reads {plural} "
            "from files; save it to a file first"
        )
    return f"no {what} at {shown}"
