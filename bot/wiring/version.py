"""The installed version, from the package metadata (pyproject.toml is the one place it is set)."""

from __future__ import annotations


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("ricorda")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "0+unknown"
