"""Atomic file writes: a temporary file in the target folder, renamed over the target.

A crash or an interrupted sweep never leaves a half-written file behind. Files
get the mode an ordinary ``open(path, "w")`` would give (``0o666`` less the
umask), not ``mkstemp``'s private ``0o600``.

Outputs never clobber what they should not (docs/formats.md, "Files written"):

* a symbolic link at the name to write is refused, never followed and never
  replaced (a ``summary.md -> ../notes.md`` left in an output folder cannot make
  a command overwrite ``notes.md``); with ``within=FOLDER``, a file whose folder
  resolves outside ``FOLDER`` (a linked sub-folder) is refused too;
* ``overwrite=False`` refuses an existing file without a race (the temporary
  file is hard-linked to the name, which fails if it exists);
* any error while writing (a full disk included) leaves the old file, or none,
  and names the file: an :class:`OSError` with the path as its ``filename``; in an
  output folder, the folder's new record is written (to its own temporary file)
  before the file is put in place, then both are renamed (renames need no space),
  so a full disk at the record names the record and puts nothing in place;
* :func:`output_lock` holds a folder for one process: a second ``baygo`` writing
  to the same folder is refused in one line (:mod:`filelock`);
* in an output folder of a command (:func:`output_record`), an existing file is
  replaced only when baygo wrote it there and it is unchanged since: every file
  written there is listed, with its SHA-256, in the folder's record
  (:data:`RECORD_NAME`), and any other file of the same name is refused
  (:class:`FileExistsError` saying ``--force``) unless the command was given
  ``--force`` (:func:`check_replace`).

Every file the package writes goes through :func:`atomic_path` (figures with
:func:`atomic_figure`, bytes with :func:`atomic_write`, text with
:func:`atomic_text`).

Temporary files carry a name only this package makes,
``.<name>.baygo-<pid>-<random>.tmp`` (:data:`TMP_NAME`; a format-bearing suffix
such as ``.tmp.mp4`` may follow, for writers that pick the format by the name).
A write killed by SIGKILL can leave one behind; writers remove such leftovers from their folder
(:func:`clean_stale_tmp`) only when they are provably ours: the name matches
:data:`TMP_NAME` exactly, the writing process (its pid is in the name) is gone,
and the file was not modified for :data:`STALE_TMP_SECONDS`. Any other file,
``.notes.tmp`` or ``.x.1234.tmp`` included, is never touched.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import tempfile
import time
from pathlib import Path

from .._interrupt import deferred_interrupt
from .._text import short_path
from .._validate import check_bool

__all__ = [
    "LOCK_NAME",
    "RECORD_NAME",
    "STALE_TMP_SECONDS",
    "TMP_NAME",
    "announce_written",
    "atomic_figure",
    "atomic_path",
    "atomic_text",
    "atomic_write",
    "check_replace",
    "check_target",
    "clean_stale_tmp",
    "folder_content",
    "forced",
    "input_files",
    "make_folders",
    "make_parent",
    "one_write_per_file",
    "output_lock",
    "output_record",
    "protected_inputs",
    "remove_told",
    "temporary_folder",
    "umask_mode",
    "unannounced",
    "written_here",
]

#: Age (seconds) after which a leftover temporary file of a dead writer is stale.
STALE_TMP_SECONDS = 3600.0
#: The names of our temporary files: ``.<name>.baygo-<pid>-<8 random chars>.tmp``.
TMP_NAME = re.compile(
    r"^\..+\.baygo-(?P<pid>[0-9]{1,10})-[a-z0-9_]{8}\.tmp(?:\.[A-Za-z0-9]{1,8})?$"
)
#: The lock file :func:`output_lock` holds in an output folder while it writes there.
LOCK_NAME = ".baygo.lock"
_LOCKED: set[Path] = set()  # output folders this process holds (output_lock)
#: The record of the files baygo wrote in an output folder: JSON ``{"files": {relative
#: path: SHA-256}}`` (:func:`output_record`).
RECORD_NAME = ".baygo-files.json"
#: A record larger than this is taken as damaged, unread (baygo's own record holds
#: about 100 bytes a file: 32 MiB is some 300,000 files).
RECORD_MAX_BYTES = 32 * 2**20
#: What parsing a record may take, checked against the memory budget before it is
#: parsed (:func:`_check_record_budget`): per byte (its bytes, its text at up to 4
#: bytes a character, the strings parsed) and per JSON value it can hold (counted as
#: its ``,``, ``:``, ``[`` and ``{``, plus one). Measured (tracemalloc): baygo's own
#: record 3.4 B a byte; crafted ones up to 25 B a byte (``[{},{},...]``: 75 B a value),
#: 14 (short keys), 23 (``[[],[],...]``), so 32 MiB could take 800 MB unbudgeted.
RECORD_BYTES_PER_BYTE = 6
RECORD_BYTES_PER_VALUE = 128
_INPUTS: list[tuple[Path, str, str]] = []  # (file, as given, whose) read (protected_inputs)
_RECORDED: dict[Path, bool] = {}  # output folders with a record (resolved) -> --force given
_SPELLED: dict[Path, Path] = {}  # output folders (resolved) -> as named (absolute, unresolved)
_ANNOUNCE: list = []  # told of each file as it is finished (announce_written)
_WRITTEN: list[set] = []  # files written by the running command (one_write_per_file)


def _tmp_prefix(path: Path) -> str:
    return f".{path.name}.baygo-{os.getpid()}-"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's live process, or not a pid we can judge: keep
    return True


def umask_mode(mode: int = 0o666) -> int:
    """``mode`` less the process umask (what ``open()`` would create).

    Examples
    --------
    >>> old = os.umask(0o022); umask_mode(), os.umask(old) == 0o022
    (420, True)
    """
    try:  # Linux: read it without changing it (os.umask is racy across threads)
        with open("/proc/self/status") as fh:
            line = next(x for x in fh if x.startswith("Umask:"))
        mask = int(line.split()[1], 8)
    except (OSError, StopIteration, ValueError, IndexError):
        mask = os.umask(0o022)
        os.umask(mask)
    return mode & ~mask


def clean_stale_tmp(folder, *, older_than: float = STALE_TMP_SECONDS) -> list[Path]:
    """Remove our leftover temporary files in ``folder`` (see the module docstring).

    A file is removed only when its name matches :data:`TMP_NAME`, its writer's pid
    is not a live process, and it was not modified for ``older_than`` seconds;
    a missing folder is fine.

    Returns
    -------
    list of pathlib.Path
        The files removed.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> for name in (".run.npz.baygo-999999999-abcd1234.tmp", ".run.npz.x1.tmp"):
    ...     _ = (d / name).write_bytes(b"")
    >>> [p.name for p in clean_stale_tmp(d, older_than=0)], [p.name for p in d.iterdir()]
    (['.run.npz.baygo-999999999-abcd1234.tmp'], ['.run.npz.x1.tmp'])
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    now, removed = time.time(), []
    for tmp in folder.glob(".*.baygo-*.tmp*"):
        match = TMP_NAME.match(tmp.name)
        if match is None or _pid_alive(int(match["pid"])):
            continue
        try:
            if tmp.is_file() and not tmp.is_symlink() and now - tmp.stat().st_mtime >= older_than:
                tmp.unlink()
                removed.append(tmp)
        except OSError:  # raced with another cleaner
            continue
    return removed


def make_parent(path) -> Path:
    """Create the folder ``path`` goes in (and its parents); returns ``Path(path)``.

    A file where a folder should be is a ``NotADirectoryError`` naming both, and
    an existing folder at ``path`` itself an ``IsADirectoryError`` (not the
    system's "File exists" or "Is a directory" about a temporary file).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); _ = (d / "x").write_text("")
    >>> make_parent(d / "x" / "y.txt")
    Traceback (most recent call last):
    ...
    NotADirectoryError: .../x/y.txt: parent .../x is a file, not a folder
    """
    path = Path(path)
    for parent in path.parents:  # the nearest existing one decides
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(f"{path}: parent {parent} is a file, not a folder")
            break
    if path.is_dir():
        raise IsADirectoryError(f"{path}: is a folder, not a file")
    make_folders(path.parent)
    return path


def make_folders(folder) -> Path:
    """``Path(folder).mkdir(parents=True, exist_ok=True)`` without recursion: pathlib's
    recurses once per missing folder, so a path 2,000 folders deep ended in "maximum
    recursion depth exceeded" (hostile21 Z15); here the missing folders are made from
    the outermost in, and a path too long for the system fails with its own "file name
    too long", naming the path.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> make_folders(d / "a" / "b").is_dir()
    True
    """
    folder = Path(folder)
    missing = []
    for level in (folder, *folder.parents):
        if level.exists() or level == level.parent:
            break
        missing.append(level)
    for level in reversed(missing):
        level.mkdir(exist_ok=True)
    if not folder.is_dir():  # a file at its name: the system's error, naming it
        folder.mkdir(exist_ok=True)
    return folder


def _refused(path: Path, why: str, code: int) -> OSError:
    return OSError(code, why, str(path))


def check_target(path, *, within=None, overwrite: bool = False) -> Path:
    """Check that ``path`` may be written, before any work is done; returns ``Path(path)``.

    Refused, each as an :class:`OSError` whose ``filename`` is ``path``: a symbolic
    link at ``path`` (never followed, never replaced); anything at ``path`` that is
    not a regular file nor a folder (a device such as ``/dev/null``, a FIFO: never
    replaced, even with ``overwrite``; a folder is refused when the file is
    written); with ``within``, a ``path`` whose folder resolves outside the folder
    ``within``; unless ``overwrite`` (default False, as every writer's), an existing
    file (:class:`FileExistsError`, saying ``overwrite=True``, or ``--force`` in a
    ``baygo`` command).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); (d / "link.md").symlink_to(d.parent / "victim.md")
    >>> check_target(d / "link.md")
    Traceback (most recent call last):
    ...
    OSError: [Errno 40] is a symbolic link (to .../victim.md): baygo never writes \
through a link; remove it or write elsewhere: '.../link.md'
    >>> check_target(d / "new.md") == d / "new.md"
    True
    """
    overwrite = check_bool("overwrite", overwrite)
    path = Path(path)
    if path.is_symlink():
        to = os.readlink(path)
        raise _refused(
            path,
            f"is a symbolic link (to {short_path(to)}): baygo never writes through a link; "
            "remove it or write elsewhere",
            errno.ELOOP,
        )
    if within is not None:
        root = Path(within).resolve()
        parent = path.parent.resolve()
        if parent != root and root not in parent.parents:
            raise _refused(
                path,
                f"is outside the output folder {short_path(within)} (a link in its path "
                f"leads to {short_path(parent)}); baygo never writes outside it",
                errno.EXDEV,
            )
    if path.exists() and not path.is_file() and not path.is_dir():  # FIFO, device, socket
        raise _refused(
            path,
            "is not a regular file (a device, FIFO or socket): baygo replaces only regular "
            "files; write elsewhere",
            errno.EEXIST,
        )
    if path.exists():  # first: --force cannot allow it, so it is never advised
        for source, shown, whose in _INPUTS:
            if _same_file(path, source):  # the command's own input: never, even with --force
                raise _refused(
                    path,
                    f"is the input {short_path(shown, 120 if len(shown) <= 120 else 60)} of "
                    f"{whose}; write the output elsewhere",  # the line names the path twice
                    errno.EPERM,  # not "exists": --force cannot allow it
                )
    if not overwrite and path.is_file():  # a folder: refused as such when written
        raise _exists(path)
    return path


def _exists(path) -> FileExistsError:
    """The refusal of an existing file, saying how to replace it: ``--force`` in a
    ``baygo`` command, ``overwrite=True`` in a Python call (every writer's keyword)."""
    how = "--force" if _WRITTEN else "overwrite=True"
    return FileExistsError(errno.EEXIST, f"exists (pass {how} to replace it)", str(path))


def _same_file(a, b) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):  # one of them does not exist (or is no path)
        return False


def input_files(value) -> list:
    """The files an argument naming an input reads: ``[path]`` for an existing file,
    ``[(folder/run.npz, "folder (its run.npz)")]`` for a run folder, ``[]`` for anything
    else (a run, a series, a path that does not exist): what :func:`protected_inputs`
    keeps from being written over.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); _ = (d / "a.csv").write_text("x\\n")
    >>> input_files(d / "a.csv") == [d / "a.csv"], input_files(d), input_files(3)
    (True, [], [])
    """
    from .safenpz import RUN_FILE

    if not isinstance(value, str | os.PathLike) or not os.fspath(value):
        return []
    path = Path(value)
    try:
        if path.is_file():
            return [path]
        if (path / RUN_FILE).is_file():  # shown as given
            return [(path / RUN_FILE, f"{path} (its {RUN_FILE})")]
    except (OSError, ValueError):  # not a path that exists
        pass
    return []


@contextlib.contextmanager
def protected_inputs(paths, *, whose: str = "this command"):
    """While the block runs, no file is written over one of ``paths`` (the files the
    running command or call reads: whatever their spelling, a hard or symbolic link to
    them), even with ``--force`` or ``overwrite=True`` (:func:`check_target` refuses it
    in one line, "is the input ... of ``whose``"). An entry may be ``(path, shown)``:
    the refusal names the input as ``shown``.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); data = d / "data.csv"; _ = data.write_text("x\\n")
    >>> with protected_inputs([data]):
    ...     check_target(d / "." / "data.csv")
    Traceback (most recent call last):
    ...
    PermissionError: [Errno 1] is the input .../data.csv of this command; write the output \
elsewhere: '.../data.csv'
    """
    added = [
        (Path(p[0]), p[1], whose) if isinstance(p, tuple) else (Path(p), str(p), whose)
        for p in paths
    ]
    _INPUTS.extend(added)
    try:
        yield
    finally:
        for p in added:
            _INPUTS.remove(p)


@contextlib.contextmanager
def atomic_path(path, *, within=None, overwrite: bool = False, suffix: bool = False,
                record: bool = True, note: str = ""):  # fmt: skip
    """A temporary name beside ``path`` to write, renamed to ``path`` if the block ends
    without an error (removed if it fails); the one way this package writes a file.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write. Refused as :func:`check_target` says (a symbolic link,
        outside ``within``, an existing file with ``overwrite=False``); its folder
        is made (:func:`make_parent`).
    within : str or os.PathLike, optional
        The output folder ``path`` must stay in.
    overwrite : bool, default False
        Replace a file already at ``path``; False (every writer's default): an
        existing file is refused (:class:`FileExistsError`), also when it appears
        while writing.
    suffix : bool, default False
        End the temporary name with ``path``'s suffix (``.tmp.mp4``) for writers
        that choose the format by the name.
    record : bool, default True
        In an output folder of a command (:func:`output_record`): replace only a file
        baygo wrote there (:func:`check_replace`) and list the new one in the folder's
        record. False for a writer's own bookkeeping named by a digest (a sweep's task
        files), which is neither checked nor listed.
    note : str, default ""
        Words the ``wrote`` line adds after the path (:func:`announce_written`): the
        rows of a sweep's table, say.

    Raises
    ------
    OSError
        Any error while writing (a full disk, a closed pipe...), with ``filename``
        set to ``path`` when it named no file; the old file (or none) is left as
        it was.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "a.txt"
    >>> with atomic_path(p) as tmp:
    ...     _ = tmp.write_text("hi")
    >>> p.read_text(), len(list(p.parent.iterdir()))
    ('hi', 1)
    """
    if within is None and record:  # a file named in an output folder stays in it
        within = _named_in_output(path)
    path = check_target(path, within=within, overwrite=True)  # before any folder is made
    key = path.parent.resolve() / path.name
    if record and _WRITTEN and key in _WRITTEN[-1]:
        raise _refused(
            path,
            "is written twice by this command: two of its outputs have this name (give "
            "them different folders); the first is kept",
            errno.EINVAL,  # not "exists": --force cannot allow it
        )
    if not overwrite and path.is_file():
        raise _exists(path)
    root = _record_root(path) if record else None
    if root is not None and overwrite:
        check_replace(path)
    make_parent(path)
    clean_stale_tmp(path.parent)
    end = f".tmp{path.suffix}" if suffix and path.suffix else ".tmp"
    try:
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=_tmp_prefix(path), suffix=end)
    except OSError as e:  # named as the file asked for, not our temporary name
        raise OSError(e.errno, e.strerror or str(e), str(path)) from e
    tmp = Path(tmp_name)
    try:
        os.fchmod(fd, umask_mode())
        os.close(fd)
        yield tmp
        with open(tmp, "rb+") as fh:  # on disk before the name points at it
            os.fsync(fh.fileno())
        check_target(path, within=within, overwrite=True)  # a link made meanwhile: refused
        with _record_lock(root):
            digest = None if root is None else _sha256(tmp)
            if root is not None and overwrite:
                check_replace(path, new=digest)  # a file put there meanwhile is kept too
            # every write that needs space (the new record too) before anything is put in
            # place: a full disk leaves the old file or none, never one unrecorded
            new_record = None if root is None else _record_tmp(root, path, digest)
            try:
                with deferred_interrupt():  # named, recorded and said together, or not at all
                    new_file = not overwrite or not path.exists()
                    if overwrite:
                        os.replace(tmp, path)
                    else:
                        _link_new(tmp, path)
                    if new_record is not None:  # a rename: needs no space
                        try:
                            _replace_record(new_record, root, path)
                        except OSError:  # an immutable record: a new file is taken back
                            if new_file:
                                path.unlink(missing_ok=True)
                            raise
                    if record and _WRITTEN:
                        _WRITTEN[-1].add(key)
                    if record:
                        for tell in _ANNOUNCE:
                            tell(path, "wrote", note)
            finally:
                if new_record is not None:
                    new_record.unlink(missing_ok=True)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        if e.filename is not None and Path(e.filename) != tmp:  # names its file already
            raise
        # our temporary file (the rename onto the output, its sync): named as the output
        raise OSError(e.errno, e.strerror or str(e), str(path)) from e
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _named_in_output(path) -> Path | None:
    """The output folder of a command (:func:`output_record`) that ``path`` is named in
    (its absolute spelling, links not followed), or None: a file named there must stay
    there, so a link in its path (``OUT/animation -> ../mine``) is refused, not followed
    (:func:`check_target`'s ``within``)."""
    if not _SPELLED:
        return None
    named = Path(os.path.abspath(path)).parent
    inside = [f for f in _SPELLED.values() if named == f or f in named.parents]
    return max(inside, key=lambda f: len(f.parts)) if inside else None


@contextlib.contextmanager
def unannounced():
    """Files written while the block runs are not told (:func:`announce_written`): a
    writer's temporary files, which it moves or copies to their names (told there).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> with announce_written(lambda p, what, note: print(what, p.name)):
    ...     with unannounced():
    ...         _ = atomic_text(d / "tmp.gif", "frames")
    ...     _ = atomic_text(d / "a.gif", "frames")
    wrote a.gif
    """
    saved = _ANNOUNCE[:]
    _ANNOUNCE.clear()
    try:
        yield
    finally:
        _ANNOUNCE[:] = saved


@contextlib.contextmanager
def temporary_folder(prefix: str = "baygo-"):
    """A temporary folder (:class:`tempfile.TemporaryDirectory`) removed at the block's
    end, and, in a worker process, also when the worker is killed first: a stop
    (Ctrl-C, SIGTERM, SIGHUP) ends the command's workers before their ``with`` blocks
    can clean up (a reproduction stopped while it drew its animation left
    ``$TMPDIR/baygo-animation-*/`` with half-written files: hostile21 Z9). There the
    folder is registered with loky's resource tracker, which outlives the workers and
    removes what they registered when the command ends (joblib's own way for its
    memory-mapped folders); in the main process the block's end removes it, a stop
    included.

    Examples
    --------
    >>> with temporary_folder("baygo-doc-") as tmp:
    ...     _ = (tmp / "frame.gif").write_bytes(b"GIF89a")
    >>> tmp.exists()
    False
    """
    import multiprocessing

    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        tracked = multiprocessing.parent_process() is not None  # a worker
        if tracked:
            try:
                from joblib.externals.loky.backend import resource_tracker
            except ImportError:  # no loky: nothing outlives this process
                tracked = False
        if tracked:
            resource_tracker.register(name, "folder")
        try:
            yield Path(name)
        finally:
            if tracked:
                resource_tracker.unregister(name, "folder")


@contextlib.contextmanager
def announce_written(tell):
    """While the block runs, ``tell(path, "wrote", note)`` is called as each file written
    through :func:`atomic_path` is finished: renamed to its name and listed in its
    folder's record, a Ctrl-C held off until it was told (a writer's own bookkeeping,
    ``record=False``, is not told; ``note``: the writer's words on it, often "");
    ``tell(path, "removed", "")`` as a file baygo wrote is removed (:func:`remove_told`).
    The ``baygo`` command says ``wrote PATH`` there, so an interrupted command has said
    exactly the files it finished.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> with announce_written(lambda p, what, note: print(what, p.name)):
    ...     _ = atomic_text(d / "a.md", "one")
    ...     _ = atomic_text(d / "b.md", "two")
    ...     remove_told(d / "a.md")
    wrote a.md
    wrote b.md
    removed a.md
    """
    _ANNOUNCE.append(tell)
    try:
        yield
    finally:
        _ANNOUNCE.remove(tell)


@contextlib.contextmanager
def one_write_per_file():
    """While the block runs (a ``baygo`` command), a file :func:`atomic_path` wrote is not
    written again: two outputs of one command that would have one name (a gallery
    folder that is the report's figures folder) are refused at the second, which would
    replace the first without a word. A writer's own bookkeeping (``record=False``) is
    not counted.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> with one_write_per_file():
    ...     _ = atomic_text(d / "a.png", "figure")
    ...     atomic_text(d / "a.png", "thumbnail", overwrite=True)
    Traceback (most recent call last):
    ...
    OSError: [Errno 22] is written twice by this command: two of its outputs have this \
name (give them different folders); the first is kept: '.../a.png'
    """
    _WRITTEN.append(set())
    try:
        yield
    finally:
        _WRITTEN.pop()


def remove_told(path) -> None:
    """Remove the file ``path`` (one baygo wrote, now stale) and say so to whoever
    listens (:func:`announce_written`): nothing baygo deletes goes unsaid."""
    with deferred_interrupt():
        Path(path).unlink()
        for tell in _ANNOUNCE:
            tell(Path(path), "removed", "")


def _link_new(tmp: Path, path: Path) -> None:
    """Give ``tmp`` the name ``path`` only if no file has it (hard link, then unlink)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise _exists(path) from None
    except OSError as e:  # a file system without hard links: check, then rename
        if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        check_target(path, overwrite=False)
        os.replace(tmp, path)
        return
    tmp.unlink()


def atomic_write(path, write, *, within=None, overwrite: bool = False, record: bool = True,
                 note: str = "") -> Path:  # fmt: skip
    """Call ``write(fh)`` on a binary temporary file, then rename it to ``path``
    (:func:`atomic_path`).

    Creates the parent folder (:func:`make_parent`); the file's mode follows the
    umask; stale temporary files of killed writes in the folder are removed first;
    ``note``: words the ``wrote`` line adds (:func:`atomic_path`).

    Examples
    --------
    >>> import tempfile
    >>> p = atomic_write(tempfile.mkdtemp() + "/a/b.bin", lambda fh: fh.write(b"hi"))
    >>> p.read_bytes(), oct(p.stat().st_mode & 0o777) == oct(umask_mode())
    (b'hi', True)
    """
    path = Path(path)
    with (
        atomic_path(path, within=within, overwrite=overwrite, record=record, note=note) as tmp,
        open(tmp, "wb") as fh,
    ):
        write(fh)
    return path


def atomic_text(path, text: str, *, within=None, overwrite: bool = False, record: bool = True,
                note: str = "") -> Path:  # fmt: skip
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_write`); returns the path.

    Examples
    --------
    >>> import tempfile
    >>> atomic_text(tempfile.mkdtemp() + "/a.md", "# hi\\n").read_text()
    '# hi\\n'
    """
    return atomic_write(path, lambda fh: fh.write(text.encode("utf-8")), within=within,
                        overwrite=overwrite, record=record, note=note)  # fmt: skip


def atomic_figure(fig, path, *, within=None, overwrite: bool = False, **savefig) -> Path:
    """``fig.savefig`` to ``path`` atomically (:func:`atomic_write`), the format given
    by ``path``'s suffix; ``savefig`` keywords (``dpi``, ``bbox_inches``) passed on; a
    figure marked SYNTHETIC DATA carries the mark as text in the file's metadata
    (:func:`~baygo_graph._text.figure_metadata`).

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> atomic_figure(fig, tempfile.mkdtemp() + "/f.png", dpi=20).read_bytes()[:4]
    b'\\x89PNG'
    >>> plt.close(fig)
    """
    from .._text import figure_metadata

    path = Path(path)
    fmt = path.suffix.lstrip(".").lower() or None
    mark = figure_metadata(fig, fmt)  # the SYNTHETIC mark as text, not only drawn
    if mark:
        savefig["metadata"] = {**mark, **(savefig.get("metadata") or {})}
    return atomic_write(
        path, lambda fh: fig.savefig(fh, format=fmt, **savefig), within=within,
        overwrite=overwrite,
    )  # fmt: skip


def folder_content(folder) -> list[str]:
    """The names in ``folder`` an analysis reads (sorted): not hidden ones, such as
    baygo's own lock and record (a stale lock a killed command left) or a ``.gitkeep``;
    ``[]`` for a folder that does not exist.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / LOCK_NAME).write_text(""), (d / ".gitkeep").write_text("")
    >>> folder_content(d)
    []
    >>> (d / "baygo-seed0").mkdir()
    >>> folder_content(d)
    ['baygo-seed0']
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


@contextlib.contextmanager
def output_lock(folder, *, wait: float = 0.0):
    """Hold the output ``folder`` for this process while the block runs.

    A :class:`filelock.FileLock` on ``folder/.baygo.lock`` (:data:`LOCK_NAME`): the
    kernel drops it when the process ends however it dies; the file is removed on
    release (while still locked: a process waiting for it takes a new one). The folder
    must exist. A link at that name, or a file there that is not empty (baygo's lock
    file is), is refused and left alone.

    Parameters
    ----------
    folder : str or os.PathLike
        The output folder.
    wait : float, default 0
        Seconds to wait for another process to release the folder (a sweep waits for
        another's brief table write); 0: refused at once.

    Raises
    ------
    OSError
        ``EBUSY``, naming ``folder``, when another process holds it (after ``wait``).

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> with output_lock(d):
    ...     (Path(d) / LOCK_NAME).exists()
    True
    >>> (Path(d) / LOCK_NAME).exists()
    False
    """
    from filelock import FileLock, Timeout

    key = Path(folder).resolve()
    if key in _LOCKED:  # this process holds it already (one folder given for two options)
        yield Path(folder)
        return
    path = check_target(Path(folder) / LOCK_NAME, overwrite=True)  # a link: refused
    if path.is_dir() or (path.is_file() and path.stat().st_size > 0):  # ours are empty
        raise FileExistsError(
            errno.EEXIST,
            "exists and baygo did not make it (baygo's lock file is empty): baygo keeps its "
            "lock there; remove it or write elsewhere",
            str(path),
        )
    lock = FileLock(path, timeout=wait, blocking=wait > 0, thread_local=False)
    try:
        lock.acquire()
    except Timeout:
        raise OSError(
            errno.EBUSY,
            f"in use by another baygo process (it holds {LOCK_NAME} there); wait for it to "
            "finish or choose another folder",
            str(folder),
        ) from None
    _LOCKED.add(key)
    try:
        yield Path(folder)
    finally:
        _LOCKED.discard(key)
        with contextlib.suppress(OSError):  # unlink first, while the lock is still ours
            Path(lock.lock_file).unlink()
        lock.release(force=True)


def _sha256(path) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _record_root(path) -> Path | None:
    """The nearest output folder with a record (:func:`output_record`) holding ``path``."""
    if not _RECORDED:
        return None
    parent = Path(path).parent.resolve()
    return next((p for p in [parent, *parent.parents] if p in _RECORDED), None)


def _key(root: Path, path) -> str:
    return (Path(path).parent.resolve() / Path(path).name).relative_to(root).as_posix()


def _check_record_budget(record: Path, shown=None) -> None:
    """BudgetError before ``record`` is parsed when what its parse may take
    (:data:`RECORD_BYTES_PER_BYTE`, :data:`RECORD_BYTES_PER_VALUE`; its values counted in
    1 MiB blocks) does not fit the memory budget; nothing for a record that is not
    there, a link, or over :data:`RECORD_MAX_BYTES` (never parsed)."""
    from ..limits import check_budget, format_bytes

    try:
        if record.is_symlink() or not record.is_file():
            return
        size = record.stat().st_size
        if size > RECORD_MAX_BYTES:
            return
        values = 1
        with open(record, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                values += sum(block.count(c) for c in (b",", b":", b"[", b"{"))
    except OSError:  # unreadable: read as damaged (lists none) where it is parsed
        return
    where = str(shown or record)
    where = where if len(where) <= 60 else "..." + where[-57:]
    check_budget(
        RECORD_BYTES_PER_BYTE * size + RECORD_BYTES_PER_VALUE * values,
        what=f"reading the folder record {where} ({format_bytes(size)})",
        advice="write to another folder",
    )


def _read_record(root: Path) -> dict:
    """The files listed in ``root``'s record; an unreadable record lists none (so nothing
    is replaced without ``--force``: the safe side). Its parse is budgeted first
    (:func:`_check_record_budget`)."""
    record = root / RECORD_NAME
    _check_record_budget(record)
    try:
        if record.is_symlink() or not record.is_file():
            return {}
        if record.stat().st_size > RECORD_MAX_BYTES:  # not ours: never read whole
            return {}
        files = json.loads(record.read_text(encoding="utf-8")).get("files", {})
        return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}
    except (OSError, ValueError, AttributeError, RecursionError):  # nested too deep
        return {}


def _record_tmp(root: Path, path: Path, digest: str) -> Path:
    """The record of ``root`` with ``path`` listed as ``digest`` (and files gone forgotten),
    written to a temporary file beside it, to be renamed over it once ``path`` is in place.

    A failure to write it (a full disk) removes it and names the record as the path was
    spelt (``OUT/.baygo-files.json: no space left on device``): nothing is put in place.
    """
    name = _key(root, path)
    files = _read_record(root) | {name: digest}
    files = {k: v for k, v in files.items() if k == name or (root / k).is_file()}
    target = check_target(root / RECORD_NAME, overwrite=True)  # never through a link
    shown = _shown_record(root, path)
    data = (json.dumps({"files": dict(sorted(files.items()))}, indent=1) + "\n").encode()
    try:
        fd, tmp = tempfile.mkstemp(dir=root, prefix=_tmp_prefix(target), suffix=".tmp")
    except OSError as e:
        raise OSError(e.errno, e.strerror or str(e), str(shown)) from e
    try:
        try:
            os.fchmod(fd, umask_mode())
            _write_all(fd, data)
        finally:
            os.close(fd)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise OSError(e.errno, e.strerror or str(e), str(shown)) from e
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def _shown_record(root: Path, path: Path) -> Path:
    """``root``'s record as the user spelt the folder in ``path`` (a file in ``root``)."""
    depth = len(Path(_key(root, path)).parts)
    folder = path.parents[depth - 1] if depth <= len(path.parents) else root
    return folder / RECORD_NAME


def _replace_record(tmp: Path, root: Path, path: Path) -> None:
    """Rename the new record ``tmp`` over ``root``'s; an error names the record (as
    :func:`_shown_record`), never its temporary file."""
    try:
        os.replace(tmp, root / RECORD_NAME)
    except OSError as e:
        raise OSError(e.errno, e.strerror or str(e), str(_shown_record(root, path))) from e


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to the file descriptor ``fd`` (``os.write`` may write less)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


@contextlib.contextmanager
def _record_lock(root: Path | None):
    """Hold ``root`` while its record is read and written: already held by this process
    (:func:`output_lock`), or, in a folder shared on purpose (a sweep's), briefly (its
    lock file removed again)."""
    if root is None or root in _LOCKED:
        yield
        return
    with output_lock(root, wait=60):
        yield


def written_here(path) -> bool | None:
    """Whether baygo wrote ``path`` in its output folder and it is unchanged since (its
    SHA-256 is the one in the folder's record); None outside an output folder with a
    record (:func:`output_record`).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> with output_record(d):
    ...     _ = atomic_text(d / "summary.md", "# ours")
    ...     (d / "notes.md").write_text("mine") and None
    ...     written_here(d / "summary.md"), written_here(d / "notes.md")
    (True, False)
    """
    root = _record_root(path)
    if root is None:
        return None
    want = _read_record(root).get(_key(root, path))
    try:
        return want is not None and Path(path).is_file() and _sha256(path) == want
    except OSError:
        return False


def forced(path) -> bool:
    """Whether ``path`` is in an output folder of a command given ``--force``
    (:func:`output_record`); False elsewhere.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> with output_record(d, force=True):
    ...     forced(d / "results.parquet")
    True
    >>> forced(d / "results.parquet")
    False
    """
    root = _record_root(path)
    return root is not None and _RECORDED[root]


def check_replace(path, *, new: str | None = None) -> Path:
    """The one rule for replacing a file in an output folder: refuse an existing ``path``
    that baygo did not write there (or that changed since), unless the command was given
    ``--force``; returns ``Path(path)``. What :func:`check_target` refuses (a symbolic
    link, a device) is refused first, with or without ``--force``.

    Outside an output folder with a record (:func:`output_record`), or for a file that
    does not exist, nothing is checked. A file whose content is ``new`` (its SHA-256)
    already is replaced (nothing is lost).

    Raises
    ------
    FileExistsError
        Naming ``path``: "exists and baygo did not write it here (pass --force to replace
        it)", or "changed since baygo wrote it (...)".

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); _ = (d / "table.csv").write_text("my own table")
    >>> with output_record(d):
    ...     check_replace(d / "table.csv")
    Traceback (most recent call last):
    ...
    FileExistsError: [Errno 17] exists and baygo did not write it here (pass --force to \
replace it): '.../table.csv'
    """
    path = check_target(path, overwrite=True)  # a link, a device: refused, even with --force
    root = _record_root(path)
    if root is None or _RECORDED[root] or not path.exists():
        return path
    if written_here(path) or (new is not None and path.is_file() and _sha256(path) == new):
        return path
    listed = _key(root, path) in _read_record(root)
    why = "changed since baygo wrote it" if listed else "exists and baygo did not write it here"
    raise FileExistsError(errno.EEXIST, f"{why} (pass --force to replace it)", str(path))


@contextlib.contextmanager
def output_record(folder, *, force: bool = False):
    """Keep the record of the files written in the output ``folder`` while the block
    runs: each file written there (or in its sub-folders) through :func:`atomic_path`
    is listed in ``folder/.baygo-files.json`` (:data:`RECORD_NAME`) with its SHA-256,
    and an existing file is replaced only when so listed and unchanged, or with
    ``force`` (:func:`check_replace`). Used by every command that writes a folder
    (``baygo_graph.cli._common.output_folder``).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> with output_record(d):
    ...     _ = atomic_text(d / "a.md", "one")
    >>> with output_record(d):  # a later command replaces what baygo wrote
    ...     atomic_text(d / "a.md", "two", overwrite=True).read_text()
    'two'
    """
    force = check_bool("force", force)
    key = Path(folder).resolve()
    record = Path(folder) / RECORD_NAME
    check_target(record, overwrite=True)  # a link or a device there: refused before any work
    if record.is_dir():
        raise IsADirectoryError(
            errno.EISDIR, "is a folder where baygo keeps the record of the files it wrote "
            "here; remove it or write elsewhere", str(record),
        )  # fmt: skip
    _check_record_budget(record)  # before the work, not at its first file
    before = _RECORDED.get(key)
    _RECORDED[key] = bool(force) or bool(before)
    spelled = _SPELLED.get(key)
    _SPELLED[key] = Path(os.path.abspath(folder))
    try:
        yield Path(folder)
    finally:
        if before is None:
            _RECORDED.pop(key, None)
        else:
            _RECORDED[key] = before
        if spelled is None:
            _SPELLED.pop(key, None)
        else:
            _SPELLED[key] = spelled
