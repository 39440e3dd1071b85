"""TREC text in and out: the job reads trec_eval's own qrels and run files, its text report equals
trec_eval's output line for line, malformed lines are named by file and line, and the converter
round-trips both formats."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_OK
from ndcg_spark.job.cli import main
from ndcg_spark.job.convert_trec import FROM_PARQUET, TO_PARQUET
from ndcg_spark.job.convert_trec import main as convert
from tests import trec_text
from tests.conftest import error_lines

TREC_CUTOFFS = "5,10,15,20,30,100,200,500,1000"


def trec_flags(conformance_dir: str, results: str = "results.test") -> list[str]:
    return [
        "--judgments",
        f"{conformance_dir}/qrels.test",
        "--judgments-format",
        "trec",
        "--results",
        f"{conformance_dir}/{results}",
        "--results-format",
        "trec",
        "--k",
        TREC_CUTOFFS,
        "--no-html-report",
    ]


def ndcg_lines(path: str, binary: bool = False) -> list[str]:
    """trec_eval's lines for ndcg and ndcg_cut_K (and, with binary, for P, recall, map, map_cut,
    recip_rank, Rprec, success and bpref), in its order."""
    kept = set(trec_text.binary_measures(path)) if binary else set()
    with open(path) as handle:
        return [
            line.rstrip("\n")
            for line in handle
            if line.split()[0] == "ndcg" or line.startswith("ndcg_cut_") or line.split()[0] in kept
        ]


def published_text(output: Path, run: str) -> list[str]:
    parts = list((output / "trec_eval" / f"run_id={run}").glob("part-*.txt"))
    assert len(parts) == 1
    return parts[0].read_text().splitlines()


@pytest.mark.parametrize(
    ("results", "expected", "extra"),
    [
        ("results.test", "out.test.aq", []),
        ("results.trunc", "out.test.aqc", ["--complete"]),
    ],
)
def test_text_report_equals_trec_eval(conformance_dir: str, tmp_path: Path, results, expected, extra) -> None:
    output = tmp_path / "out"
    flags = trec_flags(conformance_dir, results)
    assert main([*flags, "--output", str(output), "--trec-eval-report", *extra]) == EXIT_OK
    assert published_text(output, "STANDARD") == ndcg_lines(f"{conformance_dir}/{expected}")


def test_text_report_of_every_measure_equals_trec_eval(conformance_dir: str, tmp_path: Path) -> None:
    """`trec_eval -q -m all_trec`'s lines of every measure we compute, in its order, asked for
    with trec_eval's -m syntax (each measure's default cutoffs)."""
    output = tmp_path / "out"
    flags = trec_flags(conformance_dir, "results.test")
    measures = ["P", "recall", "map", "map_cut", "recip_rank", "Rprec", "success", "bpref"]
    asked = [part for name in measures for part in ("--measure", name)]
    assert main([*flags, "--output", str(output), "--trec-eval-report", *asked]) == EXIT_OK
    assert published_text(output, "STANDARD") == ndcg_lines(f"{conformance_dir}/out.test.aq", binary=True)


def write_lines(path: Path, lines: list[str]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines))
    return str(path)


@pytest.mark.parametrize(
    ("bad_line", "position"),
    [
        ("q1 Q0 d9 3 notanumber r1", 3),  # score is not a number
        ("q1 Q0 d9 3", 2),  # too few fields
        ("q1 Q0 d9 x 1.5 r1", 4),  # rank is not an integer
    ],
)
def test_malformed_run_line_is_named(tmp_path: Path, capsys, bad_line: str, position: int) -> None:
    qrels = write_lines(tmp_path / "qrels.txt", ["q1 0 d1 1", "q1 0 d2 0"])
    good = ["q1 Q0 d1 1 2.5 r1", "", "q1 Q0 d2 2 1.5 r1", "q1 Q0 d3 3 0.5 r1"]
    lines = good[: position - 1] + [bad_line] + good[position - 1 :]
    run_dir = tmp_path / "run"
    write_lines(run_dir / "a.txt", good)  # a folder of run files: the bad one is the second
    bad_file = write_lines(run_dir / "b.txt", lines)
    output = tmp_path / "out"
    code = main(
        [
            "--judgments",
            qrels,
            "--judgments-format",
            "trec",
            "--results",
            str(run_dir),
            "--results-format",
            "trec",
            "--output",
            str(output),
            "--no-html-report",
        ]
    )
    assert code == EXIT_INPUT_REJECTED
    (message,) = error_lines(capsys.readouterr().err)
    assert f"first at line {position} of file:{bad_file}" in message
    assert "1 malformed line" in message and bad_line in message
    assert not output.exists()


def test_malformed_qrels_line_is_named(tmp_path: Path, capsys) -> None:
    qrels = write_lines(tmp_path / "qrels.txt", ["q1 0 d1 1", "q1 0 d2 high", "q1 0 d3", "q1 0 d4 2"])
    run = write_lines(tmp_path / "run.txt", ["q1 Q0 d1 1 2.5 r1"])
    code = main(
        [
            "--judgments",
            qrels,
            "--judgments-format",
            "trec",
            "--results",
            run,
            "--results-format",
            "trec",
            "--output",
            str(tmp_path / "out"),
            "--no-html-report",
        ]
    )
    assert code == EXIT_INPUT_REJECTED
    message = capsys.readouterr().err
    assert "judgments" in message and "2 malformed lines, first at line 2" in message
    assert "'query_id 0 doc_id relevance'" in message


def test_trec_and_parquet_inputs_give_the_same_report(spark: SparkSession, conformance_dir: str, tmp_path: Path) -> None:
    """The converter's Parquet, evaluated, equals the text evaluated directly."""
    qrels, run = tmp_path / "qrels.parquet", tmp_path / "run.parquet"
    assert convert([TO_PARQUET, "--kind", "qrels", f"{conformance_dir}/qrels.rel_level", str(qrels)]) == EXIT_OK
    assert convert([TO_PARQUET, "--kind", "run", f"{conformance_dir}/results.test", str(run)]) == EXIT_OK
    from_text, from_parquet = tmp_path / "text", tmp_path / "parquet"
    text_flags = [
        "--judgments",
        f"{conformance_dir}/qrels.rel_level",
        "--judgments-format",
        "trec",
        "--results",
        f"{conformance_dir}/results.test",
        "--results-format",
        "trec",
    ]
    assert main([*text_flags, "--output", str(from_text), "--no-html-report"]) == EXIT_OK
    assert main(["--judgments", str(qrels), "--results", str(run), "--output", str(from_parquet), "--no-html-report"]) == EXIT_OK
    for dataset in ("per_query", "summary"):
        order = [("query_id" if dataset == "per_query" else "run_id", "ascending"), ("k", "ascending")]
        left = pq.read_table(from_text / dataset).sort_by(order)
        right = pq.read_table(from_parquet / dataset).sort_by(order)
        assert left.to_pylist() == right.to_pylist()


def test_converter_round_trip_is_exact(spark: SparkSession, conformance_dir: str, tmp_path: Path) -> None:
    for kind, source in (("qrels", "qrels.test"), ("run", "results.test")):
        parquet, text, again = tmp_path / f"{kind}.parquet", tmp_path / f"{kind}.txt", tmp_path / f"{kind}2.parquet"
        assert convert([TO_PARQUET, "--kind", kind, f"{conformance_dir}/{source}", str(parquet)]) == EXIT_OK
        assert convert([FROM_PARQUET, "--kind", kind, str(parquet), str(text)]) == EXIT_OK
        assert len(list(text.glob("part-*.txt"))) == 1
        assert convert([TO_PARQUET, "--kind", kind, str(text), str(again)]) == EXIT_OK
        first = sorted(pq.read_table(parquet).to_pylist(), key=lambda row: tuple(map(str, row.values())))
        second = sorted(pq.read_table(again).to_pylist(), key=lambda row: tuple(map(str, row.values())))
        assert first == second


def test_line_number_counts_across_blocks_of_a_file(spark: SparkSession, tmp_path: Path, capsys) -> None:
    """A big file is read in blocks by several tasks: the line number still counts from the file's
    start. 100-byte splits stand in for 128 MB ones."""
    qrels = write_lines(tmp_path / "qrels.txt", ["q1 0 d1 1"])
    lines = [f"q{i % 7} Q0 doc-{i:04d} {i} {100 - i}.5 run" for i in range(60)]
    lines[44] = "q1 Q0 doc-bad 45 high run"
    run = write_lines(tmp_path / "run.txt", lines)
    previous = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "100")
    try:
        code = main(
            [
                "--judgments",
                qrels,
                "--judgments-format",
                "trec",
                "--results",
                run,
                "--results-format",
                "trec",
                "--output",
                str(tmp_path / "out"),
                "--no-html-report",
            ]
        )
    finally:
        spark.conf.set("spark.sql.files.maxPartitionBytes", previous)
    assert code == EXIT_INPUT_REJECTED
    (message,) = error_lines(capsys.readouterr().err)
    assert f"first at line 45 of file:{run}" in message


def test_trec_files_with_the_variants_equal_pytrec_eval(conformance_dir: str, tmp_path: Path) -> None:
    """trec_eval's own files through the job with -J and -M, against pytrec_eval (which is
    trec_eval's C code) given the same flags: the run cut at 100, then condensed."""
    import pytrec_eval

    output = tmp_path / "out"
    flags = [*trec_flags(conformance_dir), "--judged-only", "--max-depth", "100"]
    assert main([*flags, "--output", str(output)]) == EXIT_OK
    rows = pq.read_table(output / "per_query").to_pylist()
    got = {(row["query_id"], row["k"]): row["ndcg"] for row in rows}
    qrels: dict[str, dict[str, int]] = {}
    with open(f"{conformance_dir}/qrels.test") as handle:
        for line in handle:
            query, _, doc, grade = line.split()
            qrels.setdefault(query, {})[doc] = int(grade)
    ranked: dict[str, list[tuple[float, str]]] = {}
    with open(f"{conformance_dir}/results.test") as handle:
        for line in handle:
            query, _, doc, _, score, _ = line.split()[:6]
            ranked.setdefault(query, []).append((float(score), doc))
    # pytrec_eval has no -M: cut each list at 100 in trec_eval's order (score, then doc_id desc).
    cut = {
        query: {doc: score for score, doc in sorted(pairs, key=lambda p: (p[0], p[1].encode()), reverse=True)[:100]}
        for query, pairs in ranked.items()
    }
    ks = [int(k) for k in TREC_CUTOFFS.split(",")]
    measures = {"ndcg", "ndcg_cut." + ",".join(map(str, ks))}
    want = pytrec_eval.RelevanceEvaluator(qrels, measures, judged_docs_only_flag=True).evaluate(cut)
    assert set(got) == {(query, k) for query in want for k in [*ks, None]}
    for (query, k), value in got.items():
        assert value == pytest.approx(want[query]["ndcg" if k is None else f"ndcg_cut_{k}"], abs=1e-9), (query, k)
