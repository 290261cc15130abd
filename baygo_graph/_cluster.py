"""A Dask client for a run: the optional import said in one line, and a client this
process opened closed again (the experiments' runner and the analysis' time
partitions both run on a cluster given by its address or as a ``Client``)."""

from __future__ import annotations

import contextlib
import re

__all__ = ["check_scheduler", "dask_client"]

#: A scheduler address Dask can dial: ``[PROTOCOL://]HOST:PORT`` (a name, an IPv4 or a
#: bracketed IPv6 address; the port a number up to 65535).
_ADDRESS = re.compile(
    r"(?:(?P<protocol>[a-z][a-z0-9+.-]*)://)?"
    r"(?:\[(?P<ipv6>[0-9A-Fa-f:.]+)\]|(?P<host>[^\s:/\[\]@]+)):(?P<port>\d{1,5})"
)
#: Seconds a scheduler is given to answer before any work (:func:`check_scheduler`).
REACH_SECONDS = 5.0


def check_scheduler(scheduler, *, name: str = "scheduler", local: str = "n_jobs",
                    reach: bool = False):  # fmt: skip
    """``scheduler`` if it is an address Dask can dial (``[PROTOCOL://]HOST:PORT``) or an
    object standing for a cluster (a ``distributed.Client``, a cluster), checked before
    any work: the one check of every command and function that takes a scheduler (Dask
    said "missing port number" only when it dialled, and a typo in the port or a
    scheduler not started yet was a 30 s time-out, both after the work).

    Parameters
    ----------
    scheduler : str or distributed.Client
        The scheduler given.
    name : str, default "scheduler"
        How the refusal names it (``--scheduler`` on the command line).
    local : str, default "n_jobs"
        What runs on local workers instead (``--jobs`` on the command line).
    reach : bool, default False
        Also connect to a ``tcp://`` (or ``tls://``) address, for up to
        :data:`REACH_SECONDS`: something must answer there.

    Raises
    ------
    ValueError
        An address that is not ``[PROTOCOL://]HOST:PORT``.
    ConnectionError
        With ``reach``: nothing answers at the address (refused, no answer in time, an
        unknown host).

    Examples
    --------
    >>> check_scheduler("tcp://10.0.0.5:8786")
    'tcp://10.0.0.5:8786'
    >>> check_scheduler("synchronous", name="--scheduler", local="--jobs")
    Traceback (most recent call last):
    ...
    ValueError: --scheduler: 'synchronous' is not a scheduler address (tcp://HOST:PORT); \
for local workers use --jobs
    """
    if isinstance(scheduler, str):
        from ._text import short_repr

        match = _ADDRESS.fullmatch(scheduler)
        if match is None or int(match["port"]) > 65535 or not _host_name(match["host"]):
            # a label empty ('a..b') or over 63 characters names no host (hostile21 Z15)
            raise ValueError(
                f"{name}: {short_repr(scheduler)} is not a scheduler address "
                f"(tcp://HOST:PORT); for local workers use {local}"
            )
        if reach and match["protocol"] in (None, "tcp", "tls"):
            _reach(match["ipv6"] or match["host"], int(match["port"]), scheduler, name, local)
    return scheduler


def _host_name(host: str | None) -> bool:
    """Whether ``host`` (None: an IPv6 address, checked by the pattern) can name a host:
    labels of 1 to 63 bytes once IDNA-encoded, 253 in all (a trailing dot allowed)."""
    if host is None:
        return True
    try:
        encoded = host.rstrip(".").encode("idna")
    except UnicodeError:
        return False
    return 0 < len(encoded) <= 253 and all(1 <= len(p) <= 63 for p in encoded.split(b"."))


def _reach(host: str, port: int, address: str, name: str, local: str) -> None:
    """Connect to ``host:port`` (then close): ConnectionError naming ``address`` if
    nothing answers within :data:`REACH_SECONDS`."""
    import socket

    from ._text import short_repr, shorten

    try:
        with socket.create_connection((host, port), timeout=REACH_SECONDS):
            return
    except socket.gaierror:
        why = f"unknown host {short_repr(host)}"
    except UnicodeError:  # a name the IDNA codec cannot encode
        why = f"not a host name: {short_repr(host)}"
    except TimeoutError:
        why = f"no answer in {REACH_SECONDS:g} s"
    except OSError as e:
        why = (e.strerror or str(e)).lower()
    raise ConnectionError(
        f"{name}: no Dask scheduler answers at {shorten(address, 120)} ({why}); start it "
        f"first, check the address, or use local workers ({local})"
    )


@contextlib.contextmanager
def dask_client(scheduler):
    """The ``distributed.Client`` for ``scheduler`` while the block runs.

    ``scheduler`` is a client (used as given, left open) or an address (a client is
    opened for the block and closed after it; one that is no address is refused,
    :func:`check_scheduler`). Without the ``dask`` extra: an ``ImportError`` naming the
    extra to install.
    """
    check_scheduler(scheduler)
    try:
        from distributed import Client
    except ImportError as e:  # pragma: no cover - optional extra
        raise ImportError(
            "a Dask scheduler needs the optional extra: pip install 'baygo-graph[dask]'"
        ) from e
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        yield client
    finally:
        if own:
            client.close()
