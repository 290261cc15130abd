"""Edge-list files as the archives distribute them: the text formats, read with a bound.

What is read (``docs/user_series.md``, "Archive files"):

* **CSV / TSV with a header row** (``.csv``, ``.tsv``): columns found by name
  (``source``, ``target``, ``time``, ``weight``), cells as written. Netzschleuder's
  ``edges.csv`` writes its header as a comment, ``# source, target, time``, and its
  rows ``0, 1, 20``: a first ``#`` line with as many fields as the next line is read
  as the header, and the space after each comma as part of the separator.
* **SNAP** (``.txt``, ``.dat``, ``.edges``; ``#`` comment lines): no header, fields
  split on spaces or tabs, columns ``source target [time]``.
* **KONECT** (``out.NAME``; ``%`` comment lines): columns
  ``source target [weight [time]]``. Its first line ``% sym ...`` says the network
  is undirected: read as two-way contacts unless ``directed=True`` is given;
  ``% bip`` (two node sets numbered separately) is refused.
* **Any other column order** (SocioPatterns' ``t i j Ci Cj``, time first): name the
  columns by position with ``columns="time,source,target"`` (CLI ``--columns``);
  ``-`` skips a position, positions after the last name are ignored. With
  ``columns`` any file is read without a header row, whatever its name.
* **Compressed**: each of these with ``.gz``, ``.bz2``, ``.xz`` or, when the
  ``zstandard`` package is installed, ``.zst``; read frame by frame as the rows are
  read (frames back to back whole; padding, junk, a cut or damaged frame refused).

Headerless fields are split on runs of spaces and tabs, or on commas when the first
data line holds a comma; they are never quoted (a ``"`` is part of a label, and every
line is one row). Comment lines (``#``, ``%``) and blank lines are skipped at
the top of the file; a comment line after the data began is refused (its words
would become node labels).

Reading is bounded: rows are read in chunks, and after each chunk the rows read so
far are checked against the memory budget (:mod:`baygo_graph.limits`) before the
next is parsed, so neither a large file nor a small compressed one that expands
without end allocates past it. A file of an unknown kind is one line naming the
kinds read and how to name columns.
"""

from __future__ import annotations

import bz2
import codecs
import csv
import importlib.util
import io
import lzma
import re
import unicodedata
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from .. import _text
from .._text import counted
from .._validate import check_unique_names
from ..exceptions import BudgetError, RunFormatError
from ..limits import (
    CSV_BYTES_PER_FILE_BYTE,
    check_budget,
    format_bytes,
    memory_budget,
    memory_limit,
    size_text,
)
from .filekind import head_kind, misnamed_message, packed_kind

__all__ = [
    "COMPRESSIONS",
    "EDGE_FILE_SUFFIXES",
    "KINDS_TEXT",
    "ZSTD",
    "ROLES",
    "TableSpec",
    "edge_file_kind",
    "first_bad_utf8",
    "unknown_kind_message",
    "parse_columns",
    "read_rows",
    "table_spec",
]

#: Compression suffixes and their pandas names.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd"}
#: Text edge lists with a header row, and SNAP-like headerless ones.
HEADER_SUFFIXES = (".csv", ".tsv")
HEADERLESS_SUFFIXES = (".txt", ".dat", ".edges")
PARQUET_SUFFIXES = (".parquet", ".pq")
#: Every file-name ending read as an edge list (KONECT's ``out.NAME`` by its name).
EDGE_FILE_SUFFIXES = (
    *HEADER_SUFFIXES,
    *PARQUET_SUFFIXES,
    *HEADERLESS_SUFFIXES,
    *(s + c for s in (*HEADER_SUFFIXES, *HEADERLESS_SUFFIXES) for c in COMPRESSIONS),
)
#: The roles a column can take (``columns=``); ``-`` skips a position.
ROLES = ("source", "target", "time", "weight")
#: Whether ``.zst`` files can be read here (the ``zstandard`` package).
ZSTD = importlib.util.find_spec("zstandard") is not None
#: What this module reads, for one-line refusals.
KINDS_TEXT = (
    "edge lists (.csv/.tsv, .parquet, SNAP .txt, KONECT out.NAME, also .gz/"
    ".bz2/.xz" + ("/.zst" if ZSTD else "") + "; other orders: columns='time,source,target' "
    "(CLI --columns))"
)
#: Rows parsed per chunk (then checked against the budget).
CHUNK_ROWS = 1_000_000
#: Upper bound of the memory of one edge-list row, from parsing to the series: measured
#: (tracemalloc) 163 B for text labels of a CSV, 136 B from Parquet, 82 B for integer
#: labels; the difference between text and integer labels is per label column.
BYTES_PER_ROW = 96
BYTES_PER_TEXT_CELL = 48
_HEAD_LIMIT = 1 << 26
#: Upper bound of the memory of one column of a header row, from its text to the names
#: the reader keeps (measured with tracemalloc: at most about 180 B; the rows' unused
#: columns are dropped as they are parsed): a header of 2 x 10^6 columns needs ~1 GiB.
HEADER_BYTES_PER_COLUMN = 512
#: Unused columns of a header past which they are dropped while parsing (pandas'
#: ``usecols``), and rows wider than the header found by a second pass.
WIDE_UNUSED = 16


@dataclass(frozen=True)
class TableSpec:
    """How a text edge-list file is read (from its name and first lines).

    Attributes
    ----------
    path : pathlib.Path
    kind : str
        ``"csv"`` (header row), ``"snap"``, ``"konect"`` or ``"columns"`` (named by
        position).
    names : tuple of str
        The column names: the header's, or roles (``"source"``...) by position, a
        skipped position as ``"-k"``.
    sep : str
        ``","``, ``"\\t"`` or ``"whitespace"``.
    skip : int
        Lines before the header or first data row (comments, blanks).
    compression : str or None
    defaults : dict
        Options the file itself states (``directed=False`` for KONECT ``sym``).
    spaced : bool
        Cells follow ``", "`` (Netzschleuder's CSV, whose header is a ``#`` line):
        the space after a comma is the separator's, not the label's. Elsewhere a
        CSV cell is read as written (RFC 4180: a space is part of a label).
    """

    path: Path
    kind: str
    names: tuple
    sep: str
    skip: int
    compression: str | None
    defaults: dict = field(default_factory=dict)
    spaced: bool = False

    @property
    def headerless(self) -> bool:
        return self.kind != "csv"


def _suffix(compression: str) -> str:
    """The file suffix of a compression (``"gzip"`` -> ``".gz"``)."""
    return next(s for s, c in COMPRESSIONS.items() if c == compression)


def _compression(name: str) -> str | None:
    return next((c for s, c in COMPRESSIONS.items() if name.endswith(s)), None)


def _base_name(path: Path) -> str:
    """The lower-cased file name without a compression suffix."""
    name = path.name.lower()
    for s in COMPRESSIONS:
        if name.endswith(s):
            return name[: -len(s)]
    return name


def edge_file_kind(path) -> str | None:
    """The kind of edge-list file ``path`` names, from its name alone.

    Returns
    -------
    str or None
        ``"parquet"``, ``"csv"`` (a header row), ``"snap"`` (``.txt``, ``.dat``,
        ``.edges``), ``"konect"`` (``out.NAME``), each maybe compressed; None for
        any other name.

    Examples
    --------
    >>> edge_file_kind("CollegeMsg.txt.gz"), edge_file_kind("out.contact")
    ('snap', 'konect')
    >>> edge_file_kind("run.npz") is None
    True
    """
    path = Path(path)
    base = _base_name(path)
    if base.endswith(PARQUET_SUFFIXES):
        return "parquet" if base == path.name.lower() else None
    if base.endswith(HEADER_SUFFIXES):
        return "csv"
    if base.endswith(HEADERLESS_SUFFIXES):
        return "snap"
    if base.startswith("out.") and len(base) > 4:
        return "konect"
    return None


def unknown_kind_message(path) -> str | None:
    """One line for a file that is no input of any kind read, or None when ``path`` is
    a folder, a ``.npz`` (a run), a saved series or an edge-list file.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "CollegeMsg.bin"
    >>> _ = p.write_text("1 2 3\\n")
    >>> print(unknown_kind_message(p).split(": ")[0].replace(str(p.parent), "D"))
    'D/CollegeMsg.bin' is not a file baygo reads
    """
    path = Path(path)
    if not path.is_file() or path.suffix.lower() in (".npz", ".json", ".graphml", ".gexf"):
        return None
    if edge_file_kind(path) is not None:
        return None
    name = _text.quoted_path(path)
    lower = path.name.lower()
    packed = next((how for ends, how in _PACKED.items() if lower.endswith(ends)), None)
    if packed:  # an archive, a codec not read, or compressed data of no kind named
        return f"{name} is {packed[0]}, which baygo does not open: {packed[1]}"
    if not path.suffix and packed_kind(path) is None:  # no name of a kind: say how to give one
        return (
            f"{name} has no suffix naming its kind: rename it (NAME.txt for SNAP rows "
            "'source target [time]', NAME.csv with a header row, NAME.npz for a run), or "
            "give its columns by position (columns='source,target,time', CLI --columns)"
        )
    return (
        f"{name} is not a file baygo reads: runs (folder, .npz), series (.json/.graphml/"
        f".gexf), {KINDS_TEXT}"
    )


#: File endings of archives and codecs not read, what they are and how to get the file
#: inside (Netzschleuder distributes NAME.csv.zip).
_INSIDE = "and pass the edge list inside (.csv, .txt, out.NAME) by its path"
_PACKED = {
    ".zip": ("a zip archive", f"extract it (python -m zipfile -e FILE DIR), {_INSIDE}"),
    **dict.fromkeys((".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar.zst"),
                    ("a tar archive", f"extract it (tar -xf FILE), {_INSIDE}")),
    ".7z": ("a 7-Zip archive", f"extract it (7z x FILE), {_INSIDE}"),
    ".rar": ("a RAR archive", f"extract it (unrar x FILE), {_INSIDE}"),
    ".lzma": ("legacy lzma data", "decompress it (xz -d FILE) and pass the plain file"),
    **{c: ("compressed data of no kind named", "name it by what it holds (NAME.txt" + c
           + " for SNAP rows, NAME.csv" + c + " with a header), or give its columns="
           "'source,target,time' (CLI --columns)") for c in COMPRESSIONS},
}  # fmt: skip


def parse_columns(columns) -> tuple:
    """The roles of a headerless file's columns by position.

    Parameters
    ----------
    columns : str or sequence of str
        ``"time,source,target"`` or ``["time", "source", "target"]``; ``-`` skips a
        position. ``source`` and ``target`` are required, each role at most once.

    Returns
    -------
    tuple of str
        Skipped positions as ``"-k"`` (``k`` the position).

    Examples
    --------
    >>> parse_columns("time,source,target")
    ('time', 'source', 'target')
    >>> parse_columns(["source", "-", "target", "time"])
    ('source', '-1', 'target', 'time')
    """
    what = _text.quoted(columns, 40)
    if isinstance(columns, str):
        items = [c.strip() for c in columns.split(",")]
    elif isinstance(columns, list | tuple):
        items = [str(c).strip() if isinstance(c, str) else c for c in columns]
    else:
        raise TypeError(f"columns must be a text like 'time,source,target' or a list, got {what}")
    bad = [c for c in items if not (isinstance(c, str) and (c in ROLES or c == "-"))]
    if bad:
        raise ValueError(
            f"columns={what}: each position is one of source, target, time, weight or - "
            f"(skip), got {_text.quoted(bad[0], 30)}"
        )
    named = [c for c in items if c != "-"]
    repeated = sorted({c for c in named if named.count(c) > 1})
    if repeated or "source" not in named or "target" not in named:
        why = f"names {repeated[0]} twice" if repeated else "needs source and target"
        raise ValueError(f"columns={what} {why}: e.g. columns='time,source,target'")
    return tuple(c if c != "-" else f"-{k}" for k, c in enumerate(items))


def _check_partial(need: int, so_far: str, *, budget, compressed: str = "") -> None:
    """BudgetError, before reading on, when what a partial read already needs exceeds the
    budget. The line says the file's total is unknown (it holds more), so no limit it
    names can be promised to read it: raising the limit only moves the refusal on.
    ``budget``: the :class:`~baygo_graph.limits.Budget` measured before the read began
    (``need`` counts the rows read so far: measured again, they would count twice)."""
    if budget.fits(need):
        return
    raise BudgetError(
        f"{so_far} need {budget.over(need)}; it may hold more{compressed}: read part of it, "
        "or raise the limit"
    )


class _Counted(io.RawIOBase):
    """A (decompressed) stream that counts the bytes read through it and refuses, with a
    BudgetError, to read past ``budget / CSV_BYTES_PER_FILE_BYTE`` of them: parsed text
    takes up to that many bytes of memory per byte (one enormous line, a compressed
    file of one endless row), whatever the number of rows."""

    def __init__(self, raw, budget, name: str, compressed: str = ""):
        super().__init__()
        self.raw, self.read_bytes, self.name, self.budget = raw, 0, name, budget
        self.cap = max(0, budget.room) // CSV_BYTES_PER_FILE_BYTE
        self.compressed = compressed

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.raw.readinto(buffer)
        self.read_bytes += n or 0
        if self.read_bytes > self.cap:
            _check_partial(
                CSV_BYTES_PER_FILE_BYTE * self.read_bytes,
                f"reading {self.name}: {self.read_bytes:,} bytes so far "
                f"({CSV_BYTES_PER_FILE_BYTE} B each)",
                budget=self.budget,
                compressed=self.compressed,
            )
        return n


def _open(path: Path, compression: str | None):
    """The file as a binary stream, decompressed (:class:`_Framed`)."""
    if compression is None:
        return open(path, "rb")
    if compression == "zstd":
        try:
            import zstandard  # noqa: F401 - only whether it is there
        except ImportError:
            raise RunFormatError(
                f"reading {_text.shorten(path.name, 80)} needs the zstandard package (pip "
                "install zstandard), or decompress it first: zstd -d FILE"
            ) from None
    return io.BufferedReader(_Framed(path, compression), buffer_size=1 << 16)


#: Per codec: the magic bytes a frame starts with, what a frame is called, the tool that
#: checks a file.
_FRAMES = {
    "gzip": (b"\x1f\x8b", "a gzip member", "gzip -t"),
    "bz2": (b"BZh", "a bz2 stream", "bzip2 -t"),
    "xz": (b"\xfd7zXZ\x00", "an xz stream", "xz -t"),
    "zstd": (b"\x28\xb5\x2f\xfd", "a zstd frame", "zstd -t"),
}
#: Compressed bytes given to a zstd decompressor at once: it has no output bound, and a
#: byte may expand to ~44 KB (a run-length block), so at most ~11 MB come out a call.
_ZSTD_FEED = 256


class _Decoder:
    """One frame's decompressor behind one interface: ``feed(data, most)`` gives at most
    ``most`` bytes (zstd, which has no such bound, is fed :data:`_ZSTD_FEED` bytes at a
    time); ``eof`` once the frame ended; ``rest``, the bytes given after its end."""

    def __init__(self, compression: str):
        self.kind = compression
        if compression == "gzip":
            self.d = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)  # checks CRC and size
        elif compression == "bz2":
            self.d = bz2.BZ2Decompressor()
        elif compression == "xz":
            self.d = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        else:
            import zstandard

            self.d = zstandard.ZstdDecompressor().decompressobj()
        self.held = b""  # input given and not yet decoded (zlib's tail, zstd's feed)

    @property
    def eof(self) -> bool:
        return bool(self.d.eof)

    @property
    def rest(self) -> bytes:
        if self.kind == "gzip":  # at a member's end zlib may leave the rest in both
            return self.d.unused_data  # unused_data and a stale unconsumed_tail
        return self.d.unused_data + self.held

    def wants(self) -> bool:
        """Whether only more input can give more output."""
        if self.kind in ("gzip", "zstd"):
            return not self.held
        return self.d.needs_input

    def feed(self, data: bytes, most: int) -> bytes:
        if self.kind == "gzip":
            out = self.d.decompress(self.held + data, most)
            self.held = self.d.unconsumed_tail
            return out
        if self.kind == "zstd":
            data = self.held + data
            out = self.d.decompress(data[:_ZSTD_FEED])
            self.held = data[_ZSTD_FEED:]
            return out
        return self.d.decompress(data, max_length=most)


class _Framed(io.RawIOBase):
    """A compressed file decompressed frame by frame as it is read (gzip members, bz2
    and xz streams, zstd frames; zstd's skippable frames skipped). Frames back to back
    are read whole; anything else is refused in one line when the reading gets there:
    bytes after a frame that are not another (padding, junk: Python's own readers
    stopped there without a word, or read gzip's padding where ``gzip -d`` warns), a
    file cut inside a frame, damaged data. Nothing is read ahead: a decompression bomb
    is decompressed only as far as the reader's budget lets it read (hostile round 12,
    Q3: a walk of every stream before the read took 74 s for a 510 KB ``.bz2``)."""

    def __init__(self, path: Path, compression: str):
        super().__init__()
        self.path, self.kind = path, compression
        self.magic, self.frame, self.tool = _FRAMES[compression]
        self.fh = open(path, "rb")  # noqa: SIM115 - closed with this stream
        self.dec: _Decoder | None = None
        self.given = b""  # compressed bytes read from the file, not yet decoded
        self.out = b""  # decoded bytes not yet returned (a zstd feed's surplus)
        self.frames = 0

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self.fh.close()
        super().close()

    def _name(self) -> str:
        return _text.shorten(repr(str(self.path)), 120)

    def _input(self) -> bytes:
        data, self.given = (self.given or self.fh.read(1 << 16)), b""
        return data

    def _peek(self, n: int) -> bytes:
        """The next ``n`` undecoded bytes (fewer at the end of the file)."""
        while len(self.given) < n and (more := self.fh.read(1 << 16)):
            self.given += more
        return self.given[:n]

    def _drop(self, n: int) -> bool:
        """Skip ``n`` undecoded bytes; False when the file ends first."""
        while n:
            if not self.given:
                self.given = self.fh.read(1 << 16)
                if not self.given:
                    return False
            k = min(n, len(self.given))
            self.given, n = self.given[k:], n - k
        return True

    def _next_frame(self) -> bool:
        """Start the next frame; False at the end of the file."""
        head = self._peek(8)
        while self.kind == "zstd" and len(head) == 8 and head[1:4] == b"\x2a\x4d\x18" and (
                0x50 <= head[0] <= 0x5F):  # fmt: skip
            if not self._drop(8 + int.from_bytes(head[4:8], "little")):  # skippable frame
                raise RunFormatError(self._cut())
            head = self._peek(8)
        if not head:
            return False
        if not head.startswith(self.magic):
            if not self.frames and self.kind == "xz" and head[:3] == b"\x5d\x00\x00":
                what, advice = _PACKED[".lzma"]  # xz -z --format=lzma, named .xz
                raise RunFormatError(f"{self._name()} is {what} (.lzma), not xz: {advice}")
            if not self.frames:
                raise RunFormatError(
                    f"{self._name()} is not {self.kind} data (it starts with "
                    f"{_text.shorten(repr(head), 40)}): check it with {self.tool}, or name "
                    "it by what it holds"
                )
            at, noun = self.fh.tell() - len(self.given), self.frame.split()[-1]
            raise RunFormatError(
                f"{self._name()} has bytes after {self.frame} (from byte {at:,} of "
                f"{self.path.stat().st_size:,}) that are not another {noun} (padding or other "
                f"data), which this reader does not take: check it with {self.tool}, and if "
                "that passes, decompress it and read the plain file"
            )
        self.dec, self.frames = _Decoder(self.kind), self.frames + 1
        return True

    def _cut(self) -> str:
        return (
            f"{self._name()} ends inside {self.frame} (cut short): check it with {self.tool},"
            " and download or copy it again"
        )

    def readinto(self, buffer) -> int:
        most = len(buffer)
        while not self.out:
            if self.dec is None and not self._next_frame():
                return 0
            dec = self.dec
            data = self._input() if dec.wants() else b""
            if dec.wants() and not data:
                raise RunFormatError(self._cut())
            try:
                self.out = dec.feed(data, most)
            except Exception as e:  # noqa: BLE001 - each codec's own error: damaged data
                why = _text.shorten(" ".join(str(e).split()), 80)
                raise RunFormatError(
                    f"{self._name()} is damaged ({why}): check it with {self.tool}, and "
                    "download or copy it again"
                ) from None
            if dec.eof:
                self.given, self.dec = dec.rest + self.given, None
        n = min(len(self.out), most)
        buffer[:n], self.out = self.out[:n], self.out[n:]
        return n


class _Head(NamedTuple):
    """The top of an edge-list file: its first line (``top``), the comment and blank
    lines before its first other line (``skip``, counted, not kept), that line
    (``first``: None when the file or the read ended before one) and whether the file
    ended."""

    top: str | None
    skip: int
    first: str | None
    ended: bool
    cap: int


def _head_lines(path: Path, compression: str | None) -> _Head:
    """The top of the (decompressed) file (:class:`_Head`): at most 64 MiB read, and at
    most what the memory budget lets text take (a compressed file of one endless line).
    Comment lines are counted, not kept: millions of ``#a`` lines from a 20 KB ``.gz``
    took 60 B each as Python strings, 1.9x the budget (hostile round 13, R5)."""
    top, skip, read = None, 0, 0
    cap = min(_HEAD_LIMIT, memory_limit() // CSV_BYTES_PER_FILE_BYTE)
    with (
        _open(path, compression) as raw,
        io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as fh,
    ):
        while read < cap:
            line = fh.readline(cap - read)
            if not line:
                return _Head(top, skip, None, True, cap)
            read += len(line)
            line = line.rstrip("\r\n")
            top = line if top is None else top
            if not _is_comment(line):
                return _Head(top, skip, line, False, cap)
            skip += 1
    return _Head(top, skip, None, False, cap)


#: Byte-order marks of text that is not UTF-8 (UTF-32 first: its LE mark starts as UTF-16's).
_WIDE_MARKS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def _not_wide_text(path: Path, compression: str | None, name: str) -> None:
    """Refuse UTF-16/32 text (Excel's "Unicode text"): a byte-order mark, or NUL bytes
    in the first line, in one line saying so (not its header as NUL-riddled names)."""
    with _open(path, compression) as raw:
        head = raw.read(4096)
    inner = head_kind(head[:16]) if compression is not None else None
    if inner is not None and (inner[1] != ".parquet" or head[4:5] == b"\x15"):
        # compressed twice, gzip inside .bz2, a gzipped Parquet file (its first page header
        # follows PAR1: text starting "PAR1" is not one): never "UTF-16 ... save as UTF-8"
        what, suffix, how = inner
        outer, _, unpack = packed_kind(path) or (f"{compression} data", None, "decompress")
        if suffix == ".parquet":
            tail = (f"{what}: decompress it ({unpack} FILE) and read the Parquet file it "
                    "gives, named .parquet")  # fmt: skip
        elif suffix in (".zip", ".7z"):
            tail = (f"{what}: decompress it ({unpack} FILE), extract the archive ({how}) and "
                    "pass the file inside")  # fmt: skip
        else:
            again = " again (compressed twice)" if what == outer else ""
            tail = (f"{what}{again}: decompress both layers ({unpack} FILE, then {how} what it "
                    "gives) and pass the plain file")  # fmt: skip
        raise RunFormatError(f"{name} is {outer} holding {tail}")
    for mark, what in _WIDE_MARKS:
        if head.startswith(mark):
            raise RunFormatError(
                f"{name} is {what} text (byte-order mark {mark.hex(' ').upper()}): save it as UTF-8"
            )
    if b"\x00" in head.split(b"\n", 1)[0]:
        raise RunFormatError(
            f"{name} holds NUL bytes in its first line: it is UTF-16 or UTF-32 text, or not "
            "text: save it as UTF-8"
        )


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith(("#", "%")) or not line.strip()


#: The whitespace that separates headerless fields: spaces and tabs (what pandas splits
#: on); any other (a no-break space, a vertical tab) is part of a field.
_FIELD_GAP = re.compile(r"[ \t]+")


def _split(line: str, sep: str) -> list[str]:
    if sep == ",":
        return line.split(",")
    line = line.strip(" \t")
    return _FIELD_GAP.split(line) if line else []


def _other_space(line: str) -> str:
    """A note naming the first whitespace character of ``line`` that is no field gap."""
    odd = next((c for c in line if c.isspace() and c not in " \t\r\n"), None)
    return "" if odd is None else (
        f" (fields are split on spaces and tabs: its U+{ord(odd):04X} "
        f"{unicodedata.name(odd, 'control character').lower()} is part of a field)"
    )  # fmt: skip


def table_spec(path, *, columns=None) -> TableSpec:
    """How to read the text edge list at ``path`` (kind, columns, separator, comments).

    Parameters
    ----------
    path : str or os.PathLike
    columns : str or sequence of str, optional
        The roles of a headerless file's columns by position (:func:`parse_columns`).

    Raises
    ------
    RunFormatError
        One line: a name of no known kind (naming the kinds read), a KONECT
        bipartite network, a headerless file whose number of columns has no default
        order (name them with ``columns``), or an unreadable (compressed) file.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "out.contact"
    >>> _ = p.write_text("% sym unweighted\\n% 3 3 3\\n1 2 1 100\\n2 3 1 160\\n")
    >>> spec = table_spec(p)
    >>> spec.kind, spec.names, spec.defaults
    ('konect', ('source', 'target', 'weight', 'time'), {'directed': False})
    """
    path = Path(path)
    name = _text.quoted_path(path)
    kind = edge_file_kind(path)
    compression = _compression(path.name.lower())
    if columns is not None:
        roles = parse_columns(columns)
        kind = "columns"
    elif kind is None or kind == "parquet":
        raise RunFormatError(f"{name} is not an edge-list file; baygo reads {KINDS_TEXT}")
    if why := misnamed_message(path, compression=compression and _suffix(compression)):
        raise RunFormatError(why)  # packed bytes under a text name: what it is, its name
    try:
        _not_wide_text(path, compression, name)
        head = _head_lines(path, compression)
    except RunFormatError:
        raise
    except UnicodeDecodeError:  # latin-1 or Windows text: name the line, never guess
        raise RunFormatError(_not_utf8(path, compression, name)) from None
    except (OSError, EOFError, ValueError) as e:
        why = _text.shorten(" ".join(str(e).split()), 120)
        raise RunFormatError(f"{name} cannot be read: {why}") from None
    skip = head.skip
    if head.first is None and head.ended:  # nothing, or only comments and blank lines
        what = "is empty" if head.top is None else "holds only comment and blank lines"
        raise RunFormatError(
            f"{name} {what}: no contact to read (an edge list has a line per contact, e.g. "
            "'1 2 100': source target time); check that it is the file you meant"
        )
    if head.first is None:  # the read's cap came first
        raise RunFormatError(
            f"{name} has more than {size_text(head.cap)} of comment and blank lines at its "
            f"top ({counted(skip, 'line', spec=',')}) before any data line: remove them (e.g. "
            "grep -v '^#'), "
            "or raise BAYGO_MEMORY_LIMIT"
        )
    first = head.first
    defaults: dict = {}
    if kind == "csv":
        sep = "\t" if _base_name(path).endswith(".tsv") else ","
        hashed = head.top.lstrip()[1:].lstrip() if skip == 1 else ""
        spaced = (
            bool(hashed)
            and head.top.lstrip().startswith("#")
            and len(next(csv.reader([hashed], delimiter=sep)))
            == len(next(csv.reader([first], delimiter=sep, skipinitialspace=True), []))
            > 1  # fields counted as the rows are read: a quoted "a, b" is one
        )  # Netzschleuder's header "# source, target, time", then "0, 1, 20" rows
        if spaced:
            skip, first = 0, hashed
        columns = first.count(sep) + 1  # before the header is split into names
        check_budget(
            columns * HEADER_BYTES_PER_COLUMN,
            what=f"reading the header of {_text.shorten(repr(path.name), 60)} "
            f"({counted(columns, 'column', spec=',')})",
            advice="save only the columns used",
        )
        raw = next(csv.reader([first], delimiter=sep), [])
        # a header written "source, target, time" matches its names without the spaces:
        # its rows are read the same way ("a, b, 1": 'b', not ' b'), one rule for both
        spaced = spaced or any(f[:1] == " " for f in raw[1:])
        header = next(csv.reader([first], delimiter=sep, skipinitialspace=True), [])
        try:
            check_unique_names(header)
        except ValueError as e:
            raise RunFormatError(f"{name}: {e}") from None
        return TableSpec(path, "csv", tuple(header), sep, skip, compression, spaced=spaced)
    sep = "," if "," in first else "whitespace"
    width = len(_split(first, sep)) if first else 0
    if kind == "konect":
        top = head.top or ""
        words = top.lstrip("% ").split() if top.startswith("%") else []
        if words[:1] == ["bip"]:
            raise RunFormatError(
                f"{name} is a KONECT bipartite network ('% bip'): its two node sets are "
                "numbered separately (node 1 of each side differs), which one series of "
                "nodes cannot hold"
            )
        if words[:1] == ["sym"]:
            defaults["directed"] = False
    if kind == "columns":
        if width and width < len(roles):
            raise RunFormatError(
                f"{name}: columns= names {len(roles)} positions, but its first data line "
                f"has {counted(width, 'field')}{_other_space(first)}"
            )
        names = roles
    else:
        order = ("source", "target", "time") if kind == "snap" else (
            "source", "target", "weight", "time")  # fmt: skip
        if width not in range(2, len(order) + 1):
            raise RunFormatError(
                f"{name}: its first data line has {counted(width, 'field')}"
                f"{_other_space(first)}; a {kind.upper()} file has 2 to {len(order)} "
                f"({' '.join(order)}): name other orders by position "
                "(columns='time,source,target', CLI --columns time,source,target)"
            )
        names = order[:width]
    _no_header_line(first, names, name, skip, kind)
    return TableSpec(path, kind, tuple(names), sep, skip, compression, defaults)


#: Column names of the archives' and tools' header rows: a first data line whose named
#: fields are all among them is a header, not an edge (its words would become nodes).
HEADER_WORDS = frozenset(
    {"source", "target", "time", "weight", "fromnodeid", "tonodeid", "from", "to", "src",
     "dst", "sourceid", "targetid", "timestamp", "unixts", "node1", "node2", "ts", "t", "w",
     "i", "j", "u", "v", "ci", "cj"}
)  # fmt: skip


def _no_header_line(first: str, names: tuple, name: str, skip: int, kind: str) -> None:
    """Refuse a headerless file whose first data line is a row of column names."""
    sep = "," if "," in first else "whitespace"
    fields = _split(first, sep) if first else []
    named = [f.strip(" \t").lstrip("#").strip().lower() for f, n in zip(fields, names,
             strict=False) if not n.startswith("-")]  # fmt: skip
    if named and all(f in HEADER_WORDS for f in named):
        raise RunFormatError(
            f"{name}: line {skip + 1} ({_text.shorten(repr(first), 60)}) looks like a header "
            "row, which this file's kind does not have: comment it out with #, or "
            + (
                "drop columns= (CLI --columns): its header names them"
                if kind == "columns"
                else "give the file a .csv/.tsv name (read with its header)"
            )
        )


def read_rows(spec: TableSpec, *, text=(), keep=None, limit=None) -> pd.DataFrame:
    """The rows of the file ``spec`` describes, read in chunks within the memory budget.

    Parameters
    ----------
    spec : TableSpec
    text : iterable of str
        Columns read as text (node labels: ``"007"`` stays ``"007"``); other columns
        are typed by pandas. Only an empty cell is missing (``NA`` is a label).
    keep : iterable of str, optional
        The header's columns to keep (the others are split off and dropped as each
        line is parsed: a spreadsheet export's thousand unused columns cost nothing);
        default every column.
    limit : int or str, optional
        The memory budget (:func:`baygo_graph.limits.memory_limit`).

    Raises
    ------
    BudgetError
        Before the chunk that would take the rows read past the budget is parsed.
    RunFormatError
        For a file that cannot be parsed (a row of another width, a comment line
        inside the data, a corrupt compressed stream).
    """
    text = set(text)
    # what the process holds counts, measured once: the rows read are counted by their
    # estimate, never again as part of the process's memory (hostile17 V2's sibling)
    budget = memory_budget(limit)
    per_row = BYTES_PER_ROW + BYTES_PER_TEXT_CELL * len(text)
    chunk = max(1, min(CHUNK_ROWS, max(0, budget.room) // (4 * per_row)))  # fits 4 times over
    name = _text.quoted_path(spec.path)
    options = {
        "header": None,
        "skiprows": spec.skip,
        "keep_default_na": False,
        "na_values": [""],
        "dtype": {k: str for k, n in enumerate(spec.names) if n in text}
        if spec.headerless
        else dict.fromkeys(text, str),
        "index_col": False,
        "chunksize": chunk,
        "encoding": "utf-8-sig",
    }
    if spec.headerless:
        used = [k for k, n in enumerate(spec.names) if not n.startswith("-")]
        if spec.kind == "columns":  # positions after the last name are ignored; the
            options["usecols"] = sorted({0, *used})  # first is read for comment lines
            options["dtype"] = options["dtype"] | {0: options["dtype"].get(0, str)}
        else:  # every position named: a row of more fields is an error, never cut
            options["names"] = list(range(len(spec.names)))
        options["sep"] = r"\s+" if spec.sep == "whitespace" else spec.sep
        options["skipinitialspace"] = spec.sep == ","  # "1, 2": spaces separate fields
        # the archives quote nothing: a " is part of a label, every line one row (as the
        # first line's fields are counted)
        options["quoting"] = csv.QUOTE_NONE
    else:
        options.update(sep=spec.sep, skipinitialspace=spec.spaced, names=list(spec.names))
        options["skiprows"] = spec.skip + 1
        # a wide header (a spreadsheet's export): its unused columns are dropped as
        # each line is parsed (pandas then ignores a row's extra values: checked after)
        unused = len(spec.names) - len(set(keep if keep is not None else spec.names))
        if unused > WIDE_UNUSED:
            options["usecols"] = sorted(set(keep), key=spec.names.index)
    chunks, rows = [], 0
    packed = (
        f" ({spec.compression}, {format_bytes(spec.path.stat().st_size)} on disk)"
        if spec.compression
        else ""
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            with (
                _open(spec.path, spec.compression) as raw,
                pd.read_csv(
                    io.BufferedReader(_Counted(raw, budget, name, packed)), **options
                ) as reader,
            ):
                for part in reader:
                    # a comment line inside the data, refused before its chunk's rows
                    # count against the budget (7,000,000 `#a` lines were "too many rows")
                    _no_inner_comments(part, spec, name)
                    rows += len(part)
                    chunks.append(part)
                    # the rows so far and the next chunk, before that chunk is parsed
                    _check_partial(
                        (rows + chunk) * per_row,
                        f"reading {name}: {counted(rows, 'row', spec=',')} so far, {chunk:,} "
                        f"next ({per_row} B each)",
                        budget=budget,
                        compressed=packed,
                    )
    except (BudgetError, RunFormatError):
        raise
    except UnicodeDecodeError:  # latin-1 or Windows text: name the line, never guess
        raise RunFormatError(_not_utf8(spec.path, spec.compression, name)) from None
    except pd.errors.ParserWarning:  # a row wider than the names: pandas would drop values
        raise RunFormatError(_wider_than_header(spec, name)) from None
    except (ValueError, OSError, EOFError, pd.errors.ParserError) as e:
        wide = _WIDER.search(str(e))
        if wide and not spec.headerless:
            raise RunFormatError(_wider_than_header(spec, name)) from None
        if wide:  # a row of more fields than the first: name the line, never cut it
            expected, line, saw = map(int, wide.groups())
            text = _line_at(spec, line)
            if _COMMENT.match(text.lstrip()):
                raise RunFormatError(
                    f"{name}: line {line} starts with {_text.shorten(repr(text), 40)}: {_MID}"
                ) from None
            raise RunFormatError(
                f"{name}: line {line} has {saw} fields, the first data line {expected}"
                f"{_other_space(text)}: every row has the fields of the first (to ignore "
                "positions after some, name the columns: columns='source,target,time')"
            ) from None
        raise RunFormatError(
            f"{name} is not a readable edge list: {_text.shorten(' '.join(str(e).split()), 160)}"
        ) from None
    if "usecols" in options and not spec.headerless and _wider_line(spec)[0] is not None:
        raise RunFormatError(_wider_than_header(spec, name))
    if not chunks:
        frame = pd.DataFrame(columns=[n for n in spec.names if not n.startswith("-")])
    else:
        frame = pd.concat(chunks, ignore_index=True) if len(chunks) > 1 else chunks[0]
    if spec.headerless:
        if spec.names[0].startswith("-"):
            frame = frame.drop(columns=[0])
        frame.columns = [spec.names[k] for k in frame.columns]
        if spec.sep == ",":  # spaces and tabs around a field are never part of it
            for c in frame.columns:
                if frame[c].dtype == object or isinstance(frame[c].dtype, pd.StringDtype):
                    frame[c] = frame[c].str.strip(" \t")
    return frame


_COMMENT = re.compile(r"^[#%]")
#: What a refusal of a comment line inside the data says.
_MID = (
    "comment lines are read only before the data: delete the line, or move it to the top "
    "of the file"
)
#: pandas' message for a row of more fields than the first.
_WIDER = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _line_at(spec: TableSpec, number: int) -> str:
    """Line ``number`` (from 1) of the (decompressed) file, at most 200 characters of it."""
    with (
        _open(spec.path, spec.compression) as raw,
        io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace", newline="") as fh,
    ):
        for k, line in enumerate(fh, 1):
            if k == number:
                return line.rstrip("\r\n")[:200]
    return ""


def _no_inner_comments(frame: pd.DataFrame, spec: TableSpec, name: str) -> None:
    """Refuse a comment line after the data began (a chunk of rows as read: its index
    counts the rows from the file's first): in a headerless file, a first field starting
    with ``#`` or ``%`` (its words would be labels); in a file with a header, where a
    label may start so, such a first field with every other field empty (a row refused
    anyway)."""
    first = frame.columns[0]
    values = frame[first]
    if values.dtype.kind != "O" and not isinstance(values.dtype, pd.StringDtype):
        return
    hit = values.astype(str).str.match(_COMMENT).to_numpy(dtype=bool)
    if not spec.headerless and hit.any():
        hit = hit & frame.drop(columns=first).isna().all(axis=1).to_numpy(dtype=bool)
    if hit.any():
        at = int(np.flatnonzero(hit)[0])
        row = int(frame.index[at])
        raise RunFormatError(
            f"{name}: line {data_line(spec, row)} starts with "
            f"{_text.quoted(values.iloc[at], 40)}: {_MID}"
        )


def data_line(spec: TableSpec, row: int) -> int | None:
    """The file's line (from 1, as an editor counts: the header, comment and blank lines
    included) where data row ``row`` (from 0, as :func:`read_rows` reads them) starts;
    None past the end. Read again from the top, only for a refusal: lines pandas skips
    (empty, or only spaces) are not rows, and a quoted field may span lines.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "e.csv"
    >>> _ = p.write_text('source,target,time\\na,b,1\\n\\nc,"d\\ne",2\\nf,g,3\\n')
    >>> [data_line(table_spec(p), row) for row in range(3)]
    [2, 4, 6]
    """
    sep = None if spec.sep == "whitespace" else spec.sep
    blank = " \t\r\n\f\v".replace(sep or "", "")
    before = spec.skip + (0 if spec.headerless else 1)
    with (
        _open(spec.path, spec.compression) as raw,
        io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace", newline="") as fh,
    ):
        number, k, open_quote = 0, -1, False
        for line in fh:
            number += 1
            if number <= before:
                continue
            if open_quote:  # the rest of a quoted field that holds a line break
                open_quote = line.count('"') % 2 == 0
                continue
            if not line.strip(blank):
                continue
            k += 1
            if k == row:
                return number
            open_quote = not spec.headerless and line.count('"') % 2 == 1
    return None


def _wider_than_header(spec: TableSpec, name: str) -> str:
    line, saw = _wider_line(spec)
    if spec.headerless:  # the columns were counted on the first data line
        where = f"line {line} has {saw} fields" if line else "a row has more fields"
        return (
            f"{name}: {where}, the first data line {len(spec.names)}: every row has the "
            "fields of the first (to ignore positions after some, name the columns: "
            "columns='source,target,time')"
        )
    where = (
        f"line {line} holds {counted(saw, 'value')}, more" if line else "a row holds more values"
    )
    return (
        f"{name}: {where} than the header names ({len(spec.names)}): its values would be "
        "read into the wrong columns"
    )


def _wider_line(spec: TableSpec) -> tuple[int | None, int]:
    """The first line after the header (or the first data line) that holds more
    values than the columns named, and how many (for the refusal; read again from the
    top, its lines split as the reader splits them)."""
    first = spec.skip + (0 if spec.headerless else 1)  # the lines before the rows
    with (
        _open(spec.path, spec.compression) as raw,
        io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace", newline="") as fh,
    ):
        if spec.sep == "whitespace":  # no csv dialect: fields split on spaces and tabs
            for number, line in enumerate(_text_lines(fh), start=1):
                fields = _split(line, spec.sep)
                if number > first and fields and not _COMMENT.match(fields[0]):
                    if len(fields) > len(spec.names):
                        return number, len(fields)
            return None, 0
        rows = csv.reader(fh, delimiter=spec.sep, skipinitialspace=spec.spaced)
        last = 0
        for row in rows:
            if rows.line_num > first and len(row) > len(spec.names):
                return last + 1, len(row)
            last = rows.line_num
    return None, 0


def _text_lines(fh):
    """The lines of ``fh`` (opened with ``newline=""``: broken at ``\\n``, ``\\r\\n``
    and a lone ``\\r``, as pandas' reader counts them), without their line breaks."""
    return (line.rstrip("\r\n") for line in fh)


def first_bad_utf8(path, compression: str | None = None) -> tuple[int, int, int] | None:
    """``(line, column, byte)`` of the file's first byte that is not UTF-8 (line and
    column from 1, as an editor counts them; a leading byte-order mark is no column),
    or None when it is all UTF-8. Read in blocks: for a refusal, after a reader failed.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "x.csv"
    >>> _ = p.write_bytes("source,target\\nJos\\xe9,b\\n".encode("latin-1"))
    >>> first_bad_utf8(p)
    (2, 4, 233)
    """
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    line, column, bad = 1, 1, None
    with _open(Path(path), compression) as raw:
        while bad is None:
            block = raw.read(1 << 16)
            try:
                text = decoder.decode(block, final=not block)
            except UnicodeDecodeError as e:  # e.object: the bytes held back, then block
                text, bad = e.object[: e.start].decode("utf-8", errors="replace"), e.object[e.start]
            parts = _LINE_BREAK.split(text)
            line += len(parts) - 1
            column = (column if len(parts) == 1 else 1) + len(parts[-1])
            if not block:
                break
    return None if bad is None else (line, column, bad)


def _not_utf8(path: Path, compression: str | None, name: str) -> str:
    """One line naming the line, column and value of the file's first byte that is not
    UTF-8 (latin-1 or Windows text), for the refusal."""
    found = first_bad_utf8(path, compression)
    if found is None:
        return f"{name} is not UTF-8 text: save the file as UTF-8"
    line, column, bad = found
    return (
        f"{name} line {line}, column {column}: byte 0x{bad:02x} is not UTF-8: save the file "
        "as UTF-8, or read it with pandas.read_csv(..., encoding=...) and pass the DataFrame"
    )


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
