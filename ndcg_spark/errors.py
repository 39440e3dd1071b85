"""Errors a scheduler can act on, each mapped to one exit code."""

from __future__ import annotations

from ndcg_spark.remedies import VOICE_JOB, VOICE_PYTHON, Remedy, Setting, Voice

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INPUT_REJECTED = 3
# The regression gate failed: the report is published, and quality dropped (docs/operations.md).
EXIT_QUALITY_DROPPED = 4


class NdcgSparkError(Exception):
    """Base of the errors whose message is meant for the person on call, as one line. One that a
    setting cures carries it (`remedy`): str() phrases it for Python, `said(VOICE_JOB)` for the
    command and its config file."""

    exit_code = EXIT_FAILURE
    remedy: Remedy | None = None
    # The setting whose value is refused: its message names the Python keyword, and the command
    # adds the flag and the config key that set it.
    setting: Setting | None = None
    # The setting that names an input's columns, when the input lacks one: the remedy to name.
    naming: Setting | None = None

    def __str__(self) -> str:
        return self.said(VOICE_PYTHON)

    def said(self, voice: Voice) -> str:
        message = super().__str__()
        if self.setting is not None and voice == VOICE_JOB:
            message = f"{message} ({self.setting.where()})"
        if self.naming is not None:
            message = f"{message}; {_naming(self.naming, voice)}"
        return message if self.remedy is None else f"{message}; {self.remedy.phrase(voice)}"


def _naming(setting: Setting, voice: Voice) -> str:
    if voice == VOICE_PYTHON:
        return f'if its columns have other names, pass {setting.keyword}={{"doc_id": "item", ...}}'
    return (
        f"if its columns have other names, pass {setting.flag} doc_id=item,..."
        f' (config file: [{setting.section}] {setting.key} = {{doc_id = "item"}})'
    )


class ConfigError(NdcgSparkError):
    """Bad arguments or config file: nothing was published. Found before any data is read, except
    a --baseline that names no run, which is known only once the results are read."""

    exit_code = EXIT_USAGE


class InputError(NdcgSparkError):
    """An input failed validation: nothing was written. A refused row check also says which input
    column it concerns, what its rows are and how many of how many (`column`, `problem`, `bad`,
    `rows`), so that a caller such as the evaluator can restate it in its own parameters' words."""

    exit_code = EXIT_INPUT_REJECTED

    def __init__(
        self,
        message: str,
        *,
        column: str | None = None,
        problem: str | None = None,
        bad: int = 0,
        rows: int = 0,
        remedy: Remedy | None = None,
        naming: Setting | None = None,
    ) -> None:
        super().__init__(message)
        self.remedy = remedy
        self.naming = naming
        self.column = column
        self.problem = problem
        self.bad = bad
        self.rows = rows


class StateNotReadable(NdcgSparkError):
    """A file of the output's own state (the publication lock, the commit record, a manifest) is
    empty, cut short or not of its shape: no retry cures it (exit 3). The message names the file
    and what to do; nothing is guessed from it."""

    exit_code = EXIT_INPUT_REJECTED


_TRACEBACK = "Traceback (most recent call last)"


def first_line(error: BaseException, innermost: bool = False) -> str:
    """An error's message in one line, for a person on call. For a JVM error, the Java exception
    (with `innermost`, its root cause) rather than py4j's wrapper; for a failure in a Python
    worker, the last line of its traceback (the exception raised)."""
    java = getattr(error, "java_exception", None)
    while innermost and java is not None and java.getCause() is not None:
        java = java.getCause()
    text = str(java.toString()) if java is not None else str(error)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    return lines[-1] if any(line.startswith(_TRACEBACK) for line in lines) else lines[0]
