"""Deprecated location of the atomic writers: use :mod:`baygo_graph.io.atomic`."""

from .io.atomic import atomic_text, atomic_write

__all__ = ["atomic_text", "atomic_write"]
