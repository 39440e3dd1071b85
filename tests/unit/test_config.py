"""Arguments and config files are validated before Spark starts."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from ndcg_spark.errors import ConfigError
from ndcg_spark.job.command_line import parse_args
from ndcg_spark.option_values import ColumnNames, parse_ks
from ndcg_spark.remedies import VOICE_JOB
from ndcg_spark.version import package_version

REQUIRED = ["--judgments", "j", "--results", "r", "--output", "o"]


def test_defaults() -> None:
    config = parse_args(REQUIRED)
    assert (config.options.ks, config.options.gain, config.options.complete, config.options.run_id) == (
        (5, 10, 20),
        "linear",
        False,
        "run",
    )
    assert config.eval_date is None and config.options.columns == ColumnNames()


def test_ks_are_sorted_and_unique() -> None:
    assert parse_ks("20,5,10,5") == (5, 10, 20)
    assert parse_ks([3, 1]) == (1, 3)


@pytest.mark.parametrize("value", ["0", "-3", "ten", "", "1.5", [True], [], "5,,10"])
def test_bad_k(value) -> None:
    with pytest.raises(ConfigError, match="^ks must be"):  # the Python keyword
        parse_ks(value)


def test_flags_override_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[input]\njudgments = "x"\nresults = "y"\n[output]\npath = "z"\n'
        '[evaluation]\nk = [3]\ncomplete = true\n[columns]\nscore = "sim"\n'
    )
    config = parse_args(["--config", str(path), "--k", "7", "--eval-date", "2026-01-31", "--judgments", "j"])
    assert (config.judgments, config.result_paths, config.output, config.options.ks) == ("j", [(None, "y")], "z", (7,))
    assert config.options.complete and config.options.columns.score == "sim"
    assert config.eval_date == dt.date(2026, 1, 31)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[evaluation]\ngain = "cubic"\n', "gain must be one of"),
        ("[evaluation]\nsurprise = 1\n", "unknown key"),
        ("[evaluation\n", "not valid TOML"),
        ('[validation]\nduplicate_results = "ignore"\n', "duplicate_results must be one of"),
        ('[evaluation]\ncomplete = "yes"\n', "complete must be true or false"),
        ('[input]\nresults_format = "csv"\n', "results_format must be one of"),
        ("[comparison]\npermutations = 0\n", "permutations must be a whole number from 1"),
        ('[comparison]\nbootstrap = "many"\n', "bootstrap must be a whole number"),
        ('[comparison]\nbaseline = ""\n', "baseline must name a run"),
        ('[slices]\ncolumns = ["locale", "locale"]\n', "distinct non-empty column names"),
        ('[input]\nquery_metadata = "m.parquet"\n', "no slice columns"),
        ("[output]\nhtml = 1\n", "html_report must be true or false"),
        ('[logging]\nformat = "xml"\n', "log_format must be one of"),
    ],
)
def test_bad_config_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        parse_args([*REQUIRED, "--config", str(path)])


def test_a_bad_value_names_the_flag_and_the_key_on_the_command_line() -> None:
    """Python's message names the keyword (ks); the command adds where it sets it."""
    with pytest.raises(ConfigError) as refused:
        parse_args([*REQUIRED, "--k", "ten"])
    assert str(refused.value) == "ks must be positive integers, got 'ten' in 'ten'"
    assert refused.value.said(VOICE_JOB) == (
        "ks must be positive integers, got 'ten' in 'ten' (flag --k, config file: [evaluation] k)"
    )


def test_missing_required_and_bad_date() -> None:
    with pytest.raises(ConfigError, match="output path is required"):
        parse_args(["--judgments", "j", "--results", "r"])
    with pytest.raises(ConfigError, match="eval_date must be YYYY-MM-DD"):
        parse_args([*REQUIRED, "--eval-date", "yesterday"])


def test_workflow_keys_from_file_and_flags(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[input]\njudgments_format = "trec"\nquery_metadata = "q.parquet"\n'
        "[output]\ntrec_eval = true\nhtml = false\n"
        '[comparison]\nbaseline = "prod"\npermutations = 5000\nbootstrap = 200\nseed = 7\n'
        '[slices]\ncolumns = ["locale", "device"]\n[logging]\nformat = "json"\n'
    )
    config = parse_args([*REQUIRED, "--config", str(path), "--results-format", "trec", "--seed", "9"])
    assert (config.judgments_format, config.results_format) == ("trec", "trec")
    assert config.trec_eval_report and not config.html_report
    assert (config.options.baseline, config.options.permutations, config.options.bootstrap, config.options.seed) == (
        "prod",
        5000,
        200,
        9,
    )
    assert config.options.slices == ("locale", "device") and config.query_metadata == "q.parquet"
    assert config.log_format == "json"
    defaults = parse_args(REQUIRED)
    assert defaults.html_report and defaults.options.baseline is None and defaults.options.slices == ()
    assert parse_args([*REQUIRED, "--no-html-report", "--slices", "a, b"]).options.slices == ("a", "b")


def test_variant_flags_and_keys(tmp_path: Path) -> None:
    config = parse_args([*REQUIRED, "--judged-only", "--max-depth", "100", "--gains", "0=0, 1=1, 2=3, 3=7.5"])
    assert config.options.judged_only and config.options.max_depth == 100
    assert config.options.gains == ((0, 0.0), (1, 1.0), (2, 3.0), (3, 7.5))
    assert config.options.variant == "gain=linear;gains=0=0,1=1,2=3,3=7.5;judged_only;max_depth=100"
    path = tmp_path / "c.toml"
    path.write_text(
        '[evaluation]\njudged_only = true\nmax_depth = 50\ngains = {2 = 3, 3 = 7}\ngain = "exponential"\n'
        '[output]\nreport_format = "latex"\n'
    )
    config = parse_args([*REQUIRED, "--config", str(path)])
    assert (config.options.judged_only, config.options.max_depth, config.options.gains) == (True, 50, ((2, 3.0), (3, 7.0)))
    assert (config.options.gain, config.report_format) == ("exponential", "latex")
    defaults = parse_args(REQUIRED)
    assert (defaults.options.judged_only, defaults.options.max_depth, defaults.options.gains, defaults.report_format) == (
        False,
        None,
        (),
        "markdown",
    )
    assert defaults.options.variant == "gain=linear"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--max-depth", "0"], "max_depth must be a whole number from 1"),
        (["--max-depth", "ten"], "max_depth must be a whole number"),
        (["--gains", "2=three"], "gains entry '2=three': the gain must be a finite number >= 0"),
        (["--gains=-1=1"], "gains entry '-1=1': negative grades always gain 0"),
        (["--gains", "a=1"], "gains entry 'a=1': grade 'a' is not a whole number"),
        (["--gains", "1=1,1=2"], "gains entry '1=2': grade 1 is given more than once"),
    ],
)
def test_bad_variant_flags(flags: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_args([*REQUIRED, *flags])


def test_several_named_results() -> None:
    base = ["--judgments", "j", "--output", "o"]
    config = parse_args([*base, "--results", "bm25=/data/bm25", "--results", "dense=s3://b/dense/date=1"])
    assert config.named_results == (("bm25", "/data/bm25"), ("dense", "s3://b/dense/date=1"))
    assert config.result_paths == [("bm25", "/data/bm25"), ("dense", "s3://b/dense/date=1")]
    # A path with '=' in it is a path, not a name.
    for path in ("/data/runs/date=2026-12-01", "s3://bucket/x=1", "./day=1/run"):
        assert parse_args([*base, "--results", path]).result_paths == [(None, path)]
    with pytest.raises(ConfigError, match="results name 'a' is given twice"):
        parse_args([*base, "--results", "a=/x", "--results", "a=/y"])
    with pytest.raises(ConfigError, match="with several results inputs each is NAME=PATH"):
        parse_args([*base, "--results", "a=/x", "--results", "/y"])


def test_named_results_from_a_config_table(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[input]\njudgments = "j"\nresults = {bm25 = "/r/bm25", dense = "/r/dense"}\n[output]\npath = "o"\n')
    assert parse_args(["--config", str(path)]).named_results == (("bm25", "/r/bm25"), ("dense", "/r/dense"))


CONF = Path(__file__).resolve().parents[2] / "conf"


@pytest.mark.parametrize("name", sorted(path.name for path in CONF.glob("*.toml")))
def test_the_example_configs_are_valid(name: str) -> None:
    """conf/'s examples, as a team would copy them: every key known, every value valid."""
    config = parse_args(["--config", str(CONF / name), "--judgments", "j", "--results", "r", "--output", "o"])
    assert config.options.ks


def test_measures_from_flags_file_and_keywords(tmp_path: Path) -> None:
    """--measure repeated, [evaluation] measures, the flags replacing the file's; ndcg_cut joins --k."""
    config_file = tmp_path / "c.toml"
    config_file.write_text('[evaluation]\nmeasures = ["map", "P@5"]\nrelevance_level = 2\n')
    base = ["--judgments", "j", "--results", "r", "--output", "o"]
    from_file = parse_args([*base, "--config", str(config_file)]).options
    assert [m.asked for m in from_file.measures] == ["map", "P.5"] and from_file.relevance_level == 2
    flags = parse_args([*base, "--config", str(config_file), "--measure", "P.5,10", "--measure", "ndcg_cut.7", "--k", "5"])
    assert [m.asked for m in flags.options.measures] == ["P.5", "P.10"]
    assert flags.options.ks == (5, 7) and flags.options.relevance_level == 2
    assert flags.options.recorded()["measures"] == ["P.5", "P.10"]


def test_no_argument_at_all_says_what_to_give(capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        parse_args([])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: ndcg-spark ")
    assert err.splitlines()[-1] == "ndcg-spark: give --judgments, --results and --output (or --config); --help lists every flag"


def test_version_prints_the_packages(capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        parse_args(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.strip() == f"ndcg-spark {package_version()}"
