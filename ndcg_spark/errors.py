"""Errors a scheduler can act on, each mapped to one exit code."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INPUT_REJECTED = 3


class NdcgSparkError(Exception):
    """Base of the errors whose message is meant for the person on call, as one line."""

    exit_code = EXIT_FAILURE


class ConfigError(NdcgSparkError):
    """Bad arguments or config file: nothing was read."""

    exit_code = EXIT_USAGE


class InputError(NdcgSparkError):
    """An input failed validation: nothing was written."""

    exit_code = EXIT_INPUT_REJECTED
