"""A remedy in the caller's own words: the flag on the command line, the keyword in Python, the
key in a config file. An error that a setting cures carries the setting and the value
(NdcgSparkError.remedy); the edge that shows the error phrases it for its caller."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Voice = Literal["python", "job"]
VOICE_PYTHON: Voice = "python"
VOICE_JOB: Voice = "job"


@dataclass(frozen=True)
class Setting:
    """One setting as each caller spells it."""

    keyword: str  # evaluate()'s keyword argument
    flag: str  # the command's flag
    section: str  # the config file's table
    key: str  # the key in that table

    def where(self) -> str:
        """Where the command takes it: its flag and its config key, those it has."""
        places = [f"flag {self.flag}"] if self.flag else []
        if self.section:
            places.append(f"config file: [{self.section}]" + (f" {self.key}" if self.key else ""))
        return ", ".join(places)


@dataclass(frozen=True)
class Remedy:
    """Set `setting` to `value`, which does `effect` (e.g. 'to keep the highest grade')."""

    setting: Setting
    value: str
    effect: str

    def phrase(self, voice: Voice) -> str:
        setting = self.setting
        if voice == VOICE_PYTHON:
            return f'pass {setting.keyword}="{self.value}" {self.effect}'
        return f'pass {setting.flag} {self.value} (config file: [{setting.section}] {setting.key} = "{self.value}") {self.effect}'
