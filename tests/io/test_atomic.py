"""io.atomic: the one way files are written (links refused, a full disk leaves the old
file and names it, no-clobber without a race, one process per output folder)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
import time

import matplotlib.pyplot as plt
import pytest

from baygo_graph.io import atomic
from baygo_graph.io.atomic import (
    LOCK_NAME,
    TMP_NAME,
    atomic_figure,
    atomic_path,
    atomic_text,
    atomic_write,
    one_write_per_file,
    output_lock,
)


def _only(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("writer", ["text", "figure"])
def test_a_symbolic_link_is_refused_and_its_target_untouched(tmp_path, writer):
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.png"
    victim.write_text("the user's own file")
    link = out / "graph_union.png"
    link.symlink_to("../victim.png")
    with pytest.raises(OSError, match="symbolic link") as info:
        if writer == "text":
            atomic_text(link, "x")
        else:
            fig, _ = plt.subplots()
            atomic_figure(fig, link, dpi=20)
    assert info.value.filename == str(link) and info.value.errno == errno.ELOOP
    assert victim.read_text() == "the user's own file"
    assert link.is_symlink() and _only(out) == ["graph_union.png"]  # no temporary left


def test_a_link_to_a_missing_file_is_refused_too(tmp_path):
    (tmp_path / "summary.md").symlink_to(tmp_path / "nowhere" / "x.md")
    with pytest.raises(OSError, match="symbolic link"):
        atomic_text(tmp_path / "summary.md", "x")
    assert not (tmp_path / "nowhere").exists()


def test_a_linked_subfolder_leading_outside_the_output_folder_is_refused(tmp_path):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "figures").symlink_to(elsewhere)
    with pytest.raises(OSError, match="outside the output folder") as info:
        atomic_text(out / "figures" / "a.png", "x", within=out)
    assert info.value.filename == str(out / "figures" / "a.png")
    with pytest.raises(OSError, match="outside the output folder"):
        atomic_text(out / "figures" / "new" / "b.png", "x", within=out)
    assert _only(elsewhere) == []  # not even a folder made there
    assert atomic_text(out / "sub" / "b.txt", "y", within=out).read_text() == "y"


def _full_disk(fh):
    fh.write(b"x" * 4096)  # part of the file is on disk when the disk fills up
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_leaves_the_old_file_and_names_it(tmp_path):
    path = tmp_path / "mse_every_agent.png"
    path.write_bytes(b"old picture")
    with pytest.raises(OSError) as info:
        atomic_write(path, _full_disk, overwrite=True)
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(path)
    assert path.read_bytes() == b"old picture"
    assert _only(tmp_path) == ["mse_every_agent.png"]


def test_a_full_disk_leaves_no_file_when_there_was_none(tmp_path):
    fig, _ = plt.subplots()

    def fill(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    fig.savefig = fill
    with pytest.raises(OSError, match="No space") as info:
        atomic_figure(fig, tmp_path / "a.png")
    assert info.value.filename == str(tmp_path / "a.png") and _only(tmp_path) == []


def test_an_error_naming_another_file_keeps_its_name(tmp_path):
    def read_fails(fh):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", "input.csv")

    with pytest.raises(FileNotFoundError) as info:
        atomic_write(tmp_path / "out.bin", read_fails)
    assert info.value.filename == "input.csv"


def test_no_overwrite_refuses_an_existing_file_even_one_made_meanwhile(tmp_path):
    path = tmp_path / "page.html"
    path.write_text("mine")
    with pytest.raises(FileExistsError, match=r"pass overwrite=True to replace"):
        atomic_text(path, "new")  # the default: every writer refuses an existing file
    with pytest.raises(FileExistsError, match="pass --force to replace"), one_write_per_file():
        atomic_text(path, "new")  # in a baygo command, the command's word for it
    assert path.read_text() == "mine"
    other = tmp_path / "late.html"
    with pytest.raises(FileExistsError), atomic_path(other, overwrite=False) as tmp:
        tmp.write_text("ours")
        other.write_text("appeared while we wrote")  # another process won the race
    assert other.read_text() == "appeared while we wrote"
    assert _only(tmp_path) == ["late.html", "page.html"]
    assert atomic_text(tmp_path / "fresh.html", "ok", overwrite=False).read_text() == "ok"


def test_suffix_keeps_the_format_in_the_temporary_name(tmp_path):
    seen = []
    with atomic_path(tmp_path / "anim.gif", suffix=True) as tmp:
        seen.append(tmp.name)
        tmp.write_bytes(b"GIF89a")
    assert seen[0].endswith(".tmp.gif") and TMP_NAME.match(seen[0])
    assert (tmp_path / "anim.gif").read_bytes() == b"GIF89a"


def test_an_interrupt_leaves_no_temporary_file(tmp_path):
    def interrupted(fh):
        fh.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(tmp_path / "results.parquet", interrupted)
    assert _only(tmp_path) == []


_HOLDER = textwrap.dedent(
    """
    import sys, time
    from baygo_graph.io.atomic import output_lock
    with output_lock(sys.argv[1]):
        print("held", flush=True)
        time.sleep(60)
    """
)


def test_an_output_folder_is_held_by_one_process(tmp_path):
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path)], stdout=subprocess.PIPE, env=env
    )
    try:
        assert holder.stdout.readline().strip() == b"held"
        with pytest.raises(OSError, match="in use by another baygo process") as info:
            with output_lock(tmp_path):
                pass
        assert info.value.errno == errno.EBUSY and info.value.filename == str(tmp_path)
    finally:
        holder.kill()
        holder.wait()
    with output_lock(tmp_path), output_lock(tmp_path):  # free again; re-entrant here
        assert (tmp_path / LOCK_NAME).exists()
    assert not (tmp_path / LOCK_NAME).exists()


def test_every_write_of_the_package_goes_through_atomic_path():
    """No other way to write a file: no savefig/to_csv/write_text/open(..., "w") on a path.

    ``fh`` is the handle :func:`atomic.atomic_write` opens; ``buf`` an in-memory
    ``io.BytesIO`` (a figure rendered to bytes in a worker, written here atomically)."""
    import re
    from pathlib import Path

    root = Path(atomic.__file__).resolve().parents[1]
    direct = re.compile(
        r"\.savefig\((?!fh|buf\b)|\.to_csv\((?!index=|\s*$)|\.to_parquet\(|\.write_text\(|\.write_bytes\("
        r"|np\.savez\w*\((?!fh)|open\([^)]*['\"][wax]b?['\"]|json\.dump\(|\.replace\(path\)"
    )
    found = []
    for py in root.rglob("*.py"):
        if py.name == "atomic.py":  # the one place that opens the temporary file
            continue
        for n, line in enumerate(py.read_text().splitlines(), 1):
            code = line.split("#")[0]
            prose = ">>>" in line or "``" in line or line.lstrip().startswith("...")
            if direct.search(code) and not prose:
                found.append(f"{py.relative_to(root)}:{n}: {line.strip()}")
    assert found == []


def test_a_failed_rename_names_the_output_not_the_temporary_file(tmp_path, monkeypatch):
    """An output that cannot be replaced (an immutable file, a read-only mount) was named
    by baygo's temporary file, twice (hostile round 8, L6)."""
    import errno
    import os

    target = tmp_path / "report.json"

    def refuse(src, dst):
        raise PermissionError(errno.EPERM, "Operation not permitted", src, None, dst)

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(PermissionError) as e:
        atomic.atomic_write(target, lambda fh: fh.write(b"{}"), overwrite=True)
    assert e.value.filename == str(target) and e.value.filename2 is None
    assert list(tmp_path.iterdir()) == []  # no temporary file left


RECORD_STEP = """
import resource, sys
from pathlib import Path
from baygo_graph.io.atomic import atomic_write, output_record
out, new = Path(sys.argv[1]), sys.argv[2].encode()
# files past 80 bytes cannot grow (Python ignores SIGXFSZ: the write fails, EFBIG):
# the figure (10 bytes) fits, the record (its SHA-256 alone is 64) does not
resource.setrlimit(resource.RLIMIT_FSIZE, (80, resource.RLIM_INFINITY))
try:
    with output_record(out):
        atomic_write(out / "figures" / "report.png", lambda fh: fh.write(new), overwrite=True)
except OSError as e:
    print(e.errno, e.filename)
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="RLIMIT_FSIZE: POSIX")
@pytest.mark.parametrize("before", [None, b"old report"])
def test_a_full_disk_at_the_record_leaves_the_old_file_or_none(tmp_path, before):
    """The record was written after the rename: a disk that took the file but not the
    record left the new file in place, unrecorded, named as the failure, and the next
    write was refused (hostile round 8, L5). A file size limit stands in for the full disk."""
    from baygo_graph.io.atomic import RECORD_NAME, output_record

    out = tmp_path / "a"
    out.mkdir()
    target = out / "figures" / "report.png"
    if before is not None:
        with output_record(out):
            atomic_write(target, lambda fh: fh.write(before))
    record = (out / RECORD_NAME).read_bytes() if before is not None else None
    said = subprocess.run(
        [sys.executable, "-c", RECORD_STEP, str(out), "new report"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout.split()  # fmt: skip
    assert said == [str(errno.EFBIG), str(out / RECORD_NAME)]  # the record named, as spelt
    if before is None:
        assert not target.exists() and not (out / RECORD_NAME).exists()
    else:
        assert target.read_bytes() == before and (out / RECORD_NAME).read_bytes() == record
    assert [p.name for p in out.rglob("*.tmp")] == []  # neither temporary file left
    with output_record(out):  # room again: replaced without --force (the record agrees)
        atomic_write(target, lambda fh: fh.write(b"new report"), overwrite=True)
    assert target.read_bytes() == b"new report"


def test_an_unreplaceable_record_is_named_and_a_new_file_taken_back(tmp_path, monkeypatch):
    """An immutable record (chattr +i) failed its rename after the file was put in place:
    the error named the record's temporary file, and the new file stayed unrecorded, so
    the next run refused it."""
    from pathlib import Path

    from baygo_graph.io.atomic import RECORD_NAME, output_record

    with output_record(tmp_path):
        atomic_text(tmp_path / "a.md", "one")
    real = os.replace

    def immutable_record(src, dst):
        if Path(dst).name == RECORD_NAME:
            raise PermissionError(errno.EPERM, "Operation not permitted", src, None, dst)
        return real(src, dst)

    monkeypatch.setattr(os, "replace", immutable_record)
    with output_record(tmp_path), pytest.raises(PermissionError) as info:
        atomic_text(tmp_path / "b.md", "two")
    assert info.value.filename == str(tmp_path / RECORD_NAME) and info.value.filename2 is None
    assert _only(tmp_path) == [RECORD_NAME, "a.md"]  # b.md taken back, no temporary file


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL (POSIX)")
def test_a_killed_workers_temporary_folder_is_removed_when_the_command_ends(tmp_path):
    # hostile21 Z9: a stop while reproduce drew its animation killed the worker inside its
    # TemporaryDirectory block; $TMPDIR/baygo-animation-*/ stayed, half-written files in it
    script = textwrap.dedent("""
        import os, signal, sys
        from joblib import Parallel, delayed
        from baygo_graph.io.atomic import temporary_folder

        def task(i):
            with temporary_folder("baygo-animation-") as tmp:
                (tmp / "half.gif").write_bytes(b"GIF89a")
                os.kill(os.getpid(), signal.SIGKILL)  # as a stop ends the workers
            return str(tmp)

        try:
            print(Parallel(n_jobs=2)(delayed(task)(i) for i in range(2)))
        except Exception as e:
            print(type(e).__name__)
    """)
    env = os.environ | {"TMPDIR": str(tmp_path), "PYTHONPATH": os.pathsep.join(sys.path),
                        "PYTHONWARNINGS": "ignore"}  # fmt: skip
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "TerminatedWorkerError" in done.stdout, done.stdout
    for _ in range(100):  # the tracker removes them once the command has ended
        left = list(tmp_path.glob("baygo-animation-*"))
        if not left:
            break
        time.sleep(0.1)
    assert left == []
