"""The HTML report, opened in headless Chromium: every chart is drawn, with the runs and dates it
should show, and the page needs no network."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ndcg_spark.errors import EXIT_OK
from ndcg_spark.job.cli import main
from ndcg_spark.report.html import PLOTLY_FILE
from scripts.make_sample import generate, query_metadata
from tests.conftest import HANG_SECONDS

CHARTS = ("ndcg-by-k", "uncut", "precision-recall", "distribution", "differences", "trend")
RUNS = ("bm25", "dense", "hybrid")
SCREENSHOTS = os.environ.get("NDCG_SPARK_SCREENSHOTS")
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
        "--measure",
        "P.5,10",
        "--measure",
        "map",
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


def test_pages_share_one_copy_of_plotly_beside_them(report: Path) -> None:
    """Nothing is fetched from the network; plotly's JavaScript is one file in report/, which every
    date's page loads, not 4.9 MB inlined in each."""
    pages = sorted(report.parent.glob("*.html"))
    assert [page.name for page in pages] == [f"{date}.html" for date in DATES]  # one page per eval date
    assert [path.name for path in report.parent.glob("*.js")] == [PLOTLY_FILE]
    for page in pages:
        text = page.read_text()
        assert re.findall(r'<script src="([^"]*)"', text) == [PLOTLY_FILE] and "<link" not in text
        assert len(text) < 500_000  # the page alone: its numbers and figures
    assert report.read_text().count('class="chart"') == len(CHARTS)


def test_charts_are_drawn_in_chromium(report: Path, browser) -> None:

    _open(browser, report)
    for chart in CHARTS:
        traces = browser.execute_script(f"return document.getElementById('{chart}').querySelectorAll('g.trace').length")
        shown = f"return document.getElementById('{chart}').data.filter(t => t.visible !== false).map(t => t.name)"
        names = browser.execute_script(shown)
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
    if SCREENSHOTS:  # NDCG_SPARK_SCREENSHOTS=DIR: the whole page, to look at
        height = browser.execute_script("return document.body.scrollHeight")
        browser.set_window_size(1200, height)
        browser.save_screenshot(str(Path(SCREENSHOTS) / "report.png"))
        browser.set_window_size(1200, 900)


def test_k_is_a_category_axis_of_the_cutoffs_evaluated(report: Path, browser) -> None:
    _open(browser, report)
    assert browser.execute_script("return document.getElementById('ndcg-by-k')._fullLayout.xaxis.type") == "category"
    ticks = browser.execute_script(
        "return Array.from(document.querySelectorAll('#ndcg-by-k .xtick text')).map(t => t.textContent)"
    )
    assert ticks == ["5", "10", "20"]  # no 6, 8, ..., no 9.5


def test_every_measure_has_a_chart(report: Path, browser) -> None:
    """The menu of the chart against k offers each measure with cutoffs, NDCG first; the bars show
    the measures without one."""
    _open(browser, report)
    buttons = browser.execute_script("return document.getElementById('ndcg-by-k').layout.updatemenus[0].buttons")
    assert [button["label"] for button in buttons] == ["ndcg", "P"]
    traces = browser.execute_script("return document.getElementById('ndcg-by-k').data.map(t => [t.meta, t.visible])")
    assert [meta for meta, visible in traces if visible] == ["ndcg_cut"] * len(RUNS)
    assert buttons[1]["args"][0]["visible"] == [meta == "P" for meta, _ in traces]
    bars = browser.execute_script("return document.getElementById('uncut').data.map(t => t.x)")
    assert all(list(x) == ["ndcg", "map"] for x in bars) and len(bars) == len(RUNS)


def test_the_comparison_table_says_what_its_columns_mean(report: Path, browser) -> None:
    _open(browser, report)
    headers = browser.execute_script(
        "return Array.from(document.querySelectorAll('h2')).filter(h => h.textContent.startsWith('Against the baseline'))[0]"
        ".nextElementSibling.querySelectorAll('th').length"
    )
    names = browser.execute_script(
        "const table = Array.from(document.querySelectorAll('h2'))"
        ".filter(h => h.textContent.startsWith('Against the baseline'))[0].nextElementSibling;"
        "return Array.from(table.querySelectorAll('th')).map(th => th.textContent)"
    )
    assert len(names) == headers and "Holm p(t)" in names and "Holm p(rand)" in names
    assert len(set(names)) == len(names), names  # no two columns headed alike
    legend = browser.find_element("css selector", ".comparison-legend").text
    for term in ("queries: those both the run and bm25 scored", "W/T/L:", "p(t):", "p(rand):", "Holm:", "95% CI:"):
        assert term in legend, term


def _open(browser, report: Path) -> None:
    """The page opened with every chart it holds drawn (decided by the charts being drawn, not by a
    clock: the bound is the suite's hang limit only); the charts it holds are CHARTS."""
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(report.as_uri())
    held = browser.execute_script("return Array.from(document.querySelectorAll('.chart .plotly-graph-div')).map(e => e.id)")
    assert sorted(held) == sorted(CHARTS), held  # at once: a chart more or less never draws the count waited for
    drawn = "return Array.from(document.querySelectorAll('.js-plotly-plot')).filter(e => e.querySelector('.main-svg')).length"
    WebDriverWait(browser, HANG_SECONDS, poll_frequency=0.1).until(lambda driver: driver.execute_script(drawn) == len(held))


def test_without_a_gate_the_page_opens_with_the_comparisons_headline(report: Path, browser) -> None:
    """At each measure, the run that gained most on the baseline, its difference, its interval and
    whether it holds after Holm's correction: first on the page, before the summary."""
    _open(browser, report)
    headline = browser.find_element("css selector", ".headline").text
    assert headline.startswith("Against bm25: the best run at each measure")
    lines = headline.splitlines()[1:]
    assert [line.split(":")[0] for line in lines] == ["ndcg@5", "ndcg@10", "ndcg@20", "ndcg", "P@5", "P@10", "map"]
    signed = r"[+-]\d\.\d{4}"
    shape = rf"[^:]+: (dense|hybrid) {signed} \(95% CI \[{signed}, {signed}\]\), (not )?significant after Holm \(p .+\)"
    for line in lines:
        assert re.fullmatch(shape, line), line
    order = browser.execute_script("return Array.from(document.querySelectorAll('h2')).map(h => h.textContent)")
    assert order[0].startswith("Against bm25: the best run")


def test_a_single_eval_date_says_so_instead_of_a_trend(report: Path) -> None:
    first = (report.parent / f"{DATES[0]}.html").read_text()
    assert f"One eval date is published so far ({DATES[0]}): the trend is drawn from the second" in first
    assert 'id="trend"' not in first and 'class="headline"' not in first  # no baseline on that date: no headline


def test_a_self_contained_page_draws_on_its_own(report: Path, browser, tmp_path: Path) -> None:
    """--html-self-contained: plotly's JavaScript inside the page, no file beside it; the page,
    copied alone to another folder, still draws every chart."""
    sample = report.parent.parent.parent
    output = tmp_path / "out"
    argv = ["--judgments", str(sample / "judgments.parquet"), "--results", str(sample / "results.parquet")]
    assert main([*argv, "--output", str(output), "--k", "5,10", "--html-self-contained", "--eval-date", DATES[0]]) == EXIT_OK
    page = output / "report" / f"{DATES[0]}.html"
    assert sorted(path.name for path in page.parent.iterdir() if path.name.endswith(".js")) == []
    alone = tmp_path / "mailed" / "page.html"
    alone.parent.mkdir()
    shutil.copy(page, alone)
    text = alone.read_text()
    assert "<script src=" not in text and len(text) > 1_000_000
    charts = text.count('class="chart"')
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(alone.as_uri())
    drawn = "return Array.from(document.querySelectorAll('.js-plotly-plot')).filter(e => e.querySelector('.main-svg')).length"
    WebDriverWait(browser, HANG_SECONDS, poll_frequency=0.1).until(lambda driver: driver.execute_script(drawn) == charts)
    assert charts >= 3
