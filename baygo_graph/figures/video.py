"""Writing animations to files: GIF (Pillow, always available) or MP4 (ffmpeg).

MP4 needs an ffmpeg writer: ``ffmpeg`` on PATH or the optional extra
``pip install baygo-graph[video]`` (imageio-ffmpeg). Animations that can render
their own frames (``iter_frames``, as :class:`~baygo_graph.figures.animation.RunAnimation`
does) are written frame by frame; any other matplotlib animation goes through
``anim.save``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from ..io.atomic import atomic_path, atomic_write

__all__ = ["VIDEO_HINT", "ffmpeg_path", "save_animation"]

VIDEO_HINT = (
    "MP4 needs an ffmpeg writer: install the optional extra "
    "(python -m pip install 'baygo-graph[video]', which brings imageio-ffmpeg) "
    "or put ffmpeg on PATH; GIF works without it"
)


def ffmpeg_path() -> str | None:
    """An ffmpeg executable matplotlib can use: on PATH, else imageio-ffmpeg's; or None.

    Examples
    --------
    >>> path = ffmpeg_path()
    >>> path is None or isinstance(path, str)
    True
    """
    import matplotlib as mpl

    configured = mpl.rcParams.get("animation.ffmpeg_path", "ffmpeg")
    found = shutil.which(configured)
    if found:
        return found
    try:
        import imageio_ffmpeg
    except ImportError:
        return None
    try:
        exe = imageio_ffmpeg.get_ffmpeg_exe()
    except RuntimeError:
        return None
    return exe if exe and Path(exe).is_file() else None


def save_animation(anim, path, *, fps=4, dpi=90, overwrite: bool = True):
    """Write an animation to ``path``: ``.gif`` (Pillow) or ``.mp4`` (ffmpeg).

    Animations from :func:`animate_run` are rendered fast (the static part of
    the figure drawn once); any other matplotlib animation goes through
    ``anim.save``.

    Parameters
    ----------
    anim : matplotlib.animation.Animation
    path : str or os.PathLike
        The suffix picks the format.
    fps : int, default 4
    dpi : int, default 90
    overwrite : bool, default True
        False refuses an existing file (:class:`FileExistsError`). The file is
        written atomically (:func:`~baygo_graph.io.atomic.atomic_path`).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    RuntimeError
        For ``.mp4`` when no ffmpeg writer is available (the message says how to
        get one), or when ffmpeg fails.
    ValueError
        For another suffix.
    """
    import matplotlib as mpl
    from matplotlib.animation import FFMpegWriter, PillowWriter

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise ValueError(f"path must end in .gif or .mp4, got {str(path)!r}")
    if isinstance(fps, bool) or not isinstance(fps, int | float) or fps <= 0:
        raise ValueError(f"fps must be a positive number, got {fps!r}")
    exe = ffmpeg_path() if suffix == ".mp4" else None
    if suffix == ".mp4" and exe is None:
        raise RuntimeError(VIDEO_HINT)
    if hasattr(anim, "iter_frames"):
        frames = anim.iter_frames(dpi=dpi)
        if suffix == ".gif":
            _write_gif(frames, path, fps=fps, overwrite=overwrite)
        else:
            _write_mp4(frames, path, fps=fps, exe=exe, overwrite=overwrite)
        return path
    with atomic_path(path, overwrite=overwrite, suffix=True) as tmp:
        if suffix == ".gif":
            anim.save(tmp, writer=PillowWriter(fps=fps), dpi=dpi)
        else:
            with mpl.rc_context({"animation.ffmpeg_path": exe}):
                writer = FFMpegWriter(fps=fps, codec="libx264", extra_args=["-pix_fmt", "yuv420p"])
                anim.save(tmp, writer=writer, dpi=dpi)
    return path


def _write_gif(frames, path: Path, *, fps, overwrite: bool) -> None:
    from PIL import Image

    images = [Image.fromarray(f).quantize(colors=256, dither=Image.Dither.NONE) for f in frames]
    if not images:
        raise ValueError("the animation has no frames")
    atomic_write(  # a temporary name only this package makes (io.atomic), never ".x.tmp"
        path,
        lambda fh: images[0].save(
            fh,
            format="GIF",
            save_all=True,
            append_images=images[1:],
            duration=int(round(1000 / fps)),
            loop=0,
            optimize=False,
        ),
        overwrite=overwrite,
    )


def _write_mp4(frames, path: Path, *, fps, exe: str, overwrite: bool) -> None:
    import subprocess

    frames = iter(frames)
    first = next(frames, None)
    if first is None:
        raise ValueError("the animation has no frames")
    h, w = first.shape[:2]
    with atomic_path(path, overwrite=overwrite, suffix=True) as tmp:
        cmd = [
            exe, "-y", "-loglevel", "error",
            "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", str(fps), "-i", "-",
            "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart",
            str(tmp),
        ]  # fmt: skip
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            proc.stdin.write(np.ascontiguousarray(first).tobytes())
            for f in frames:
                proc.stdin.write(np.ascontiguousarray(f).tobytes())
            proc.stdin.close()
        except BrokenPipeError:
            pass
        err = proc.stderr.read().decode(errors="replace")
        if proc.wait() != 0:
            raise RuntimeError(f"ffmpeg failed writing {str(path)!r}: {err.strip()[:200]}")
