"""What packed data a file holds, from its first bytes (layer 0: every reader asks).

A reader handed compressed data, an archive or a Parquet file under a text name (a
``.txt.gz`` saved as ``.txt``, a ``.tar`` of a CSV given as the data file) says what
the file is and how to unpack it, instead of a codec's complaint or pandas reading
inside it by the name's suffix (docs/formats.md).
"""

from __future__ import annotations

import re

__all__ = ["head_kind", "packed_kind"]

#: Packed data a text reader may be handed under a text name (a ``.txt.gz`` saved as
#: ``.txt``, as browsers and some servers do): (its first bytes, what it is, the suffix
#: that names it, how to unpack it).
_PACKED = (
    (re.compile(rb"\x1f\x8b\x08"), "gzip-compressed data", ".gz", "gzip -d"),
    (re.compile(rb"BZh[1-9]1AY&SY"), "bzip2-compressed data", ".bz2", "bzip2 -d"),
    (re.compile(rb"\xfd7zXZ\x00"), "xz-compressed data", ".xz", "xz -d"),
    (re.compile(rb"\x28\xb5\x2f\xfd"), "zstd-compressed data", ".zst", "zstd -d"),
    (re.compile(rb"PAR1"), "a Parquet file", ".parquet", None),
    (re.compile(rb"PK(\x03\x04|\x05\x06)"), "a zip archive (or a run saved as .npz)", ".zip",
     "python -m zipfile -e FILE DIR"),
    (re.compile(rb"7z\xbc\xaf\x27\x1c"), "a 7-Zip archive", ".7z", "7z x FILE"),
)  # fmt: skip
#: Where a tar header writes ``ustar`` (its first member's header starts the file).
_TAR_MAGIC_AT = 257


def packed_kind(path) -> tuple[str, str, str | None] | None:
    """``(what, suffix, how to unpack)`` of a file whose first bytes are compressed
    data, a Parquet file or an archive (a tar too); None for anything else (or no file).

    Examples
    --------
    >>> import gzip, tempfile
    >>> from pathlib import Path
    >>> p = Path(tempfile.mkdtemp()) / "edges.txt"
    >>> _ = p.write_bytes(gzip.compress(b"1 2 100\\n"))
    >>> packed_kind(p)
    ('gzip-compressed data', '.gz', 'gzip -d')
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(_TAR_MAGIC_AT + 8)
            if head.startswith(b"PAR1"):  # and ends so (a label PAR1 starts no Parquet)
                fh.seek(-4, 2)
                if fh.read(4) != b"PAR1":
                    return None
    except OSError:
        return None
    if head[_TAR_MAGIC_AT : _TAR_MAGIC_AT + 5] == b"ustar":  # POSIX and GNU tar headers
        return "a tar archive", ".tar", "tar -xf FILE"
    return head_kind(head[:16])


def head_kind(head: bytes) -> tuple[str, str, str | None] | None:
    """:func:`packed_kind` of a file's first bytes (e.g. what a compressed file holds
    once decompressed); a Parquet file is taken at its first bytes alone.

    Examples
    --------
    >>> import gzip
    >>> head_kind(gzip.compress(b"1 2 100\\n")[:16]), head_kind(b"1 2 100")
    (('gzip-compressed data', '.gz', 'gzip -d'), None)
    """
    return next(((w, s, h) for magic, w, s, h in _PACKED if magic.match(head)), None)
