"""The HTML report, opened in headless Chromium: every chart is drawn, with the runs and dates it
should show, and the page needs no network."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ndcg_spark.errors import EXIT_OK
from ndcg_spark.job.cli import main
from scripts.make_sample import generate, query_metadata
from tests.conftest import HANG_SECONDS

CHARTS = ("ndcg-by-k", "distribution", "differences", "trend")
RUNS = ("bm25", "dense", "hybrid")
DATES = ("2026-11-30", "2026-12-01")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample evaluated on two eval dates, the second with a baseline and slices: its page. The
    first date gives the trend its first point and a page of its own; nothing else is read of it."""
    folder = tmp_path_factory.mktemp("report")
    judgments, results = generate(queries=60, depth=20, seed=3)
    pq.write_table(judgments, folder / "judgments.parquet")
    pq.write_table(results, folder / "results.parquet")
    pq.write_table(query_metadata(60), folder / "queries.parquet")
    inputs = [
        "--judgments",
        str(folder / "judgments.parquet"),
        "--results",
        str(folder / "results.parquet"),
        "--output",
        str(folder / "out"),
        "--k",
        "5,10,20",
    ]
    assert main([*inputs, "--eval-date", DATES[0]]) == EXIT_OK
    assert (
        main(
            [
                *inputs,
                "--eval-date",
                DATES[-1],
                "--baseline",
                "bm25",
                "--slices",
                "locale",
                "--query-metadata",
                str(folder / "queries.parquet"),
                "--permutations",
                "200",
                "--bootstrap",
                "200",
            ]
        )
        == EXIT_OK
    )
    return folder / "out" / "report" / f"{DATES[-1]}.html"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver_path:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium chromium-driver; .ci/run installs it)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_page_is_self_contained(report: Path) -> None:
    page = report.read_text()
    assert "<script src=" not in page and "<link" not in page  # nothing fetched when opened
    assert page.count('class="chart"') == len(CHARTS)
    assert (report.parent / f"{DATES[0]}.html").exists()  # one page per eval date


def test_charts_are_drawn_in_chromium(report: Path, browser) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(report.as_uri())
    drawn = "return Array.from(document.querySelectorAll('.js-plotly-plot')).filter(e => e.querySelector('.main-svg')).length"
    # Decided by the charts being drawn, not by a clock: the bound is the suite's hang limit only.
    WebDriverWait(browser, HANG_SECONDS, poll_frequency=0.1).until(lambda driver: driver.execute_script(drawn) == len(CHARTS))
    for chart in CHARTS:
        traces = browser.execute_script(f"return document.getElementById('{chart}').querySelectorAll('g.trace').length")
        names = browser.execute_script(f"return document.getElementById('{chart}').data.map(t => t.name)")
        expected = [run for run in RUNS if run != "bm25"] if chart == "differences" else list(RUNS)
        assert sorted(names) == expected, chart
        assert traces >= len(expected), chart
        # Something was plotted: the drawn paths of the traces have a shape, not just the axes.
        painted = browser.execute_script(
            f"return Array.from(document.getElementById('{chart}').querySelectorAll('g.trace path'))"
            ".filter(p => (p.getAttribute('d') || '').length > 10).length"
        )
        assert painted > 0, chart
    dates = browser.execute_script("return document.getElementById('trend').data[0].x")
    assert list(dates) == list(DATES)
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
    text = browser.find_element("tag name", "body").text
    assert "biggest wins and losses" in text and "Against the baseline bm25" in text and "by slice" in text
    assert "Scored with gain=linear." in text
