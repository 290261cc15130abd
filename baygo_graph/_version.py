"""The package version, in a module of its own so that no module imports the package."""

__all__ = ["__version__"]

__version__ = "0.2.0.dev0"
