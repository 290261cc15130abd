"""What a file looks like, for errors that say so ("x.gexf is a GEXF file ...").

A reader given a file of another kind (a GEXF export where a run is expected, a
``.npy`` array saved under a run file's name) says what the file is and what reads
what, instead of a parser's complaint ("File is not a zip file").
"""

from __future__ import annotations

__all__ = ["describe_file", "missing_message", "not_a_run_message"]

#: What a file that is not a run looks like: (marker in its first bytes, description).
_KINDS = (
    (b"\x93NUMPY", "a .npy file (one numpy array; a run file is a .npz archive)"),
    (b"<gexf", "a GEXF file (a graph series: read_series reads it)"),
    (b"<graphml", "a GraphML file"),
    (b'"format": "baygo-graph-series"', "a JSON graph series"),
)


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
    from pathlib import Path

    from .._text import shorten

    shown = shorten(repr(str(path)), 120)
    target = Path(path)
    if target.exists() and not target.is_dir() and not target.is_file():
        return (
            f"{shown} is not a regular file (a FIFO, device or socket): baygo reads {plural} "
            "from files; save it to a file first"
        )
    return f"no {what} at {shown}"
