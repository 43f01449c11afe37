"""The console in a real browser: Debian's Chromium, driven by Playwright, against a real
``sutura serve`` process. It loads the page behind the token, browses and searches the
catalog, builds a question with the form, compiles and asks it, and checks both halves the
page shows against the bytes the API and MCP send; a refusal; keyboard and labels; and the
hostile corpus shown as text, executing nothing. Screenshots and the measured first-load bytes
and time to first answer are saved under the artifacts directory (see :mod:`.browser`)."""

import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Final

import anyio
import duckdb
import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, sync_playwright

from sutura.core.text.escape import escape_cell, escape_text, is_escaped
from tests.clock import unclocked
from tests.transports.http.console.browser import artifacts_dir, require_chromium, serving
from tests.transports.mcp.configs import HOSTILE_FIRST_DAY, HOSTILE_QUESTION, hostile_config
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION, connected, text_of, wiring

pytestmark = pytest.mark.slow

TOKEN: Final = "console-test-token-0123456789"
WAIT_MS: Final = 30_000
MARKUP: Final = (
    '<img src="/x" onerror="window.__pwned = 1">',
    "<script>window.__pwned = 2</script>",
    '<a href="javascript:window.__pwned = 3" id="forged">click</a>',
    '<iframe src="https://example.org/"></iframe>',
    "<style>body { display: none }</style>",
    '"><svg onload="window.__pwned = 4">',
)
"""Browser-specific markup, added to the corpus for this surface: cells and prose both."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium from the operating system, for the module."""
    path = require_chromium()
    (artifacts_dir() / "measures.json").unlink(missing_ok=True)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(path),
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def example_url(example_dir: Path) -> Iterator[str]:
    """The example deployment behind a token, served by ``sutura serve``."""
    with serving(example_dir, SUTURA__SECURITY__ACCESS_TOKEN=TOKEN) as url:
        yield url


@pytest.fixture()
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page that records what it logged, every dialog and every uncaught error."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    opened = context.new_page()
    opened.set_default_timeout(WAIT_MS)
    logged: list[str] = []
    opened.on("console", lambda message: logged.append(f"{message.type}: {message.text}"))
    opened.on("pageerror", lambda error: logged.append(f"pageerror: {error}"))
    opened.on("dialog", lambda dialog: logged.append(f"dialog: {dialog.message}"))
    setattr(opened, "logged", logged)  # noqa: B010 (read back by the tests)
    try:
        yield opened
    finally:
        context.close()


def _text(locator: Locator) -> str:
    found = locator.text_content()
    assert found is not None
    return found


def _logged(page: Page) -> list[str]:
    found: list[str] = getattr(page, "logged")  # noqa: B009
    return found


def _api(url: str, method: str, path: str, body: Any = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=url, timeout=30) as http:
        return http.request(method, path, json=body, headers=headers)


def _mcp_text(config: Path, tool: str, arguments: dict[str, Any]) -> str:
    """The text block the MCP server ``sutura mcp`` composes returns for ``tool``."""

    async def asked() -> str:
        with anyio.fail_after(60):
            async with connected(wiring(config)) as client:
                return text_of(await client.call_tool(tool, arguments))

    # Playwright's synchronous API runs an event loop on this thread; MCP gets its own.
    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(anyio.run, asked).result(timeout=90)


def _record(name: str, value: object) -> None:
    target = artifacts_dir() / "measures.json"
    measures = json.loads(target.read_text()) if target.exists() else {}
    measures[name] = value
    target.write_text(json.dumps(measures, indent=2, sort_keys=True) + "\n")


def _sign_in(page: Page, url: str) -> None:
    page.goto(url + "/")
    page.locator("#status", has_text="401").wait_for()
    page.get_by_label("Access token").fill(TOKEN)
    page.get_by_label("Access token").press("Enter")
    page.wait_for_selector("#metrics li")


def _visible_metrics(page: Page) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        "#metrics > li:not([hidden])", "items => items.map(i => i.dataset.metric)"
    )
    return found


def _ask(page: Page) -> None:
    page.evaluate("delete document.body.dataset.outcome")
    page.get_by_role("button", name="Ask", exact=True).click()
    page.wait_for_selector("body[data-outcome]")


def _first_load_bytes(page: Page) -> dict[str, int]:
    measured: dict[str, int] = page.evaluate(
        """() => {
          const nav = performance.getEntriesByType('navigation')[0];
          const files = performance.getEntriesByType('resource')
            .filter(r => r.name.includes('/console/'));
          const data = performance.getEntriesByType('resource')
            .filter(r => !r.name.includes('/console/'));
          const sum = (xs) => xs.reduce((n, r) => n + r.transferSize, 0);
          return {page_and_files: nav.transferSize + sum(files), catalog_data: sum(data)};
        }"""
    )
    return measured


def test_the_browser_builds_a_question_and_shows_both_halves_as_the_api_sends_them(
    page: Page, example_url: str, example_dir: Path
) -> None:
    _sign_in(page, example_url)
    load = _first_load_bytes(page)
    _record("first_load_bytes", load)
    assert load["page_and_files"] < 200_000
    page.screenshot(path=str(artifacts_dir() / "catalog.png"))

    catalog = _api(example_url, "GET", "/v1/catalog").json()
    page.get_by_label("Search metrics by name, synonym or description").fill("turnover")
    assert _visible_metrics(page) == ["revenue"]  # a glossary synonym of revenue
    page.get_by_label("Search metrics by name, synonym or description").fill("distinct buyers")
    assert _visible_metrics(page) == ["active_customers"]  # its description
    page.get_by_label("Search metrics by name, synonym or description").fill("")
    assert _visible_metrics(page) == [m["name"] for m in catalog["metrics"]]
    digest = catalog["provenance"]["definition_digest"]
    assert digest in _text(page.locator("#definitions"))

    page.get_by_role("button", name="Ask about revenue").click()
    # The range starts at the latest year the metric's data covers whole (the catalog says
    # where it is: 2023 to 2025 in the example), not at a year written into the page.
    revenue = next(m for m in catalog["metrics"] if m["name"] == "revenue")
    assert (revenue["data"]["first"], revenue["data"]["last"]) == ("2023-01-01", "2025-12-31")
    box = page.get_by_label("Question JSON", exact=False)
    assert json.loads(box.input_value())["range"] == {"start": "2025-01-01", "end": "2026-01-01"}
    page.get_by_label("Start (inclusive)").fill("2024-01-01")
    page.get_by_label("End (exclusive)").fill("2025-01-01")
    page.get_by_label("Grain").select_option("quarter")
    page.locator("#dimension-choices").get_by_label("region", exact=True).check()
    built = json.loads(box.input_value())
    assert built == EXAMPLE_QUESTION
    # The question typed into the box: the form shows what it says, the box keeps it.
    typed = {**EXAMPLE_QUESTION, "grain": "month", "dimensions": ["channel"]}
    box.fill(json.dumps(typed))
    assert page.get_by_label("Grain").input_value() == "month"
    assert page.locator("#dimension-choices").get_by_label("channel", exact=True).is_checked()
    assert not page.locator("#dimension-choices").get_by_label("region", exact=True).is_checked()
    assert json.loads(box.input_value()) == typed
    box.fill(json.dumps(built))
    assert page.get_by_label("Grain").input_value() == "quarter"
    # A field the forms do not offer (a later question field), typed in the box, survives
    # an edit of the form.
    box.fill(json.dumps({**built, "later_field": {"kept": True}}))
    page.get_by_label("Grain").select_option("month")
    assert json.loads(box.input_value()) == {
        **EXAMPLE_QUESTION,
        "grain": "month",
        "later_field": {"kept": True},
    }
    page.get_by_label("Grain").select_option("quarter")
    box.fill(json.dumps(built))

    page.get_by_role("button", name="Compile (no data read)").click()
    page.wait_for_selector("#compiled:not([hidden])")
    compiled = _api(example_url, "POST", "/console/compile", built).json()
    sql = _text(page.locator("#compiled-sql"))
    assert sql == f"-- dialect: duckdb\n{compiled['sql']}"
    assert page.locator("#compiled-params td").count() == 3 * len(compiled["parameters"])

    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=example_url)
    page.get_by_role("button", name="Copy JSON").click()
    page.locator("#status", has_text="copied").wait_for()
    assert json.loads(page.evaluate("navigator.clipboard.readText()")) == EXAMPLE_QUESTION

    _ask(page)
    page.locator("#answer").screenshot(path=str(artifacts_dir() / "answer.png"))

    sent = _api(example_url, "POST", "/v1/query", built)
    shown = _text(page.locator("#structured-half"))
    assert unclocked(shown) == unclocked(sent.content.decode("utf-8"))  # two asks
    shown_text = _text(page.locator("#text-half"))
    assert unclocked(shown_text) == unclocked(_mcp_text(example_dir, "ask_metric", built))
    answer = sent.json()
    assert page.locator("#rows tr").count() == 1 + len(answer["rows"])
    assert page.locator("#chart polyline").count() == len({row[1] for row in answer["rows"]})
    assert answer["provenance"]["definition_digest"] in _text(page.locator("#provenance"))
    # The one error is the catalog's 401 before the token was entered.
    errors = [line for line in _logged(page) if line.startswith(("error", "pageerror"))]
    assert errors == [
        "error: Failed to load resource: the server responded with a status of 401 (Unauthorized)"
    ]


def test_the_catalog_as_the_agent_reads_it_is_the_describe_catalog_text_half(
    page: Page, example_url: str, example_dir: Path
) -> None:
    _sign_in(page, example_url)
    page.get_by_text("The catalog as the agent reads it").click()
    page.locator("#catalog-text", has_text=re.compile(r"\S")).wait_for()
    shown = _text(page.locator("#catalog-text"))
    assert unclocked(shown) == unclocked(_mcp_text(example_dir, "describe_catalog", {}))
    assert "data: from 2023-01-01 to 2025-12-31 (as of " in shown


def test_each_metric_shows_its_formula_only_when_the_operator_shows_formulas(
    page: Page, example_url: str, example_dir: Path
) -> None:
    _sign_in(page, example_url)
    assert page.locator("#metrics li .formula").count() == 0  # prompt.formulas: hidden
    page.close()
    shown = page.context.new_page()
    shown.set_default_timeout(WAIT_MS)
    with serving(
        example_dir, SUTURA__SECURITY__ACCESS_TOKEN=TOKEN, SUTURA__PROMPT__FORMULAS="shown"
    ) as url:
        _sign_in(shown, url)
        catalog = _api(url, "GET", "/v1/catalog").json()
        formulas = {m["name"]: m["formula"] for m in catalog["metrics"]}
        found: dict[str, str] = shown.eval_on_selector_all(
            "#metrics > li",
            "items => Object.fromEntries(items.map("
            "i => [i.dataset.metric, i.querySelector('.formula').textContent]))",
        )
    assert found == {name: "formula: " + escape_text(f) for name, f in formulas.items()}
    assert "formula: sum(amount) where order_status != 'cancelled'" in found["revenue"]


def test_time_to_first_answer_of_the_example_is_measured(page: Page, example_url: str) -> None:
    """Navigation to answer shown, by the page's own clock (reported in measures.json, not
    asserted: speed belongs to the bench, not to a loaded test machine)."""
    _sign_in(page, example_url)
    page.get_by_role("button", name="Load example revenue_by_region_2024").click()
    _ask(page)
    shown_at: dict[str, str] = page.locator("#timing").evaluate("t => ({...t.dataset})")
    measured = {k: round(float(v), 1) for k, v in shown_at.items()}
    # The page's own work, without the automation's pauses between steps: ready to script,
    # the catalog fetched and drawn, the question asked and its answer drawn.
    measured["page_work_ms"] = round(
        measured["readyMs"] + measured["catalogLoadMs"] + measured["askMs"], 1
    )
    _record("time_to_first_answer_ms", measured)
    assert set(measured) >= {"askMs", "sinceLoadMs", "catalogMs", "catalogLoadMs", "readyMs"}
    assert _text(page.locator("#answer-summary")).startswith("answer · 16 rows")


def test_the_forms_write_the_later_question_fields_and_the_api_answers_them(
    page: Page, example_url: str
) -> None:
    _sign_in(page, example_url)
    page.get_by_role("button", name="Ask about revenue").click()
    page.get_by_label("Grain").select_option("quarter")
    page.get_by_label("Compare with").select_option("previous_year")
    page.get_by_label("Window", exact=True).select_option("trailing")
    page.get_by_label("Trailing periods").fill("2")
    page.get_by_label("Every period of the range has a row").check()
    page.get_by_label("Keep the top (empty: all)").fill("1")
    page.get_by_label("Within each period").check()
    built = json.loads(page.get_by_label("Question JSON", exact=False).input_value())
    assert {k: built[k] for k in ("compare", "window", "fill", "top")} == {
        "compare": {"to": "previous_year"},
        "window": {"trailing": 2},
        "fill": True,
        "top": {"n": 1, "by": "revenue", "direction": "desc", "per": "period"},
    }
    page.get_by_label("Compare with").select_option("")
    page.get_by_label("Keep the top (empty: all)").fill("")
    built = json.loads(page.get_by_label("Question JSON", exact=False).input_value())
    assert "compare" not in built and "top" not in built
    _ask(page)
    sent = _api(example_url, "POST", "/v1/query", built)
    assert sent.status_code == 200, sent.text
    shown = _text(page.locator("#structured-half"))
    assert unclocked(shown) == unclocked(sent.content.decode("utf-8"))
    assert "revenue.trailing" in sent.json()["columns"]


def test_the_filter_form_carries_every_filter_op_from_the_json_box_and_back(
    page: Page, example_url: str
) -> None:
    _sign_in(page, example_url)
    filters = [
        {"op": "is_not_null", "dimension": "region"},
        {"op": "eq", "dimension": "segment", "value": "business"},
        {"op": "between", "dimension": "channel", "low": "phone", "high": "web"},
        {"op": "lt", "dimension": "segment", "value": "m"},
    ]
    question = {
        "metrics": ["revenue"],
        "grain": "quarter",
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
        "filters": filters,
    }
    page.get_by_label("Question JSON", exact=False).fill(json.dumps(question))
    page.get_by_label("Grain").select_option("year")  # the form rewrites the box
    built = json.loads(page.get_by_label("Question JSON", exact=False).input_value())
    assert built["grain"] == "year" and built["filters"] == filters
    asked = {**built, "filters": filters[:2]}
    sent = _api(example_url, "POST", "/v1/query", asked)
    assert sent.status_code == 200, sent.text
    refused = _api(example_url, "POST", "/v1/query", built)
    assert refused.status_code == 400 and "$.filters[2].op" in refused.json()["detail"]


def test_a_refusal_shows_its_code_status_and_remedy_as_the_api_sends_them(
    page: Page, example_url: str
) -> None:
    _sign_in(page, example_url)
    # An answer first: nothing of it may stay on the page once a refusal replaces it.
    earlier = {**EXAMPLE_QUESTION, "metrics": ["order_count"]}
    page.get_by_label("Question JSON", exact=False).fill(json.dumps(earlier))
    _ask(page)
    digests = _api(example_url, "POST", "/v1/query", earlier).json()["provenance"]
    assert page.locator("#provenance").is_visible()
    question = {**EXAMPLE_QUESTION, "dimensions": ["region", "region"]}
    page.get_by_label("Question JSON", exact=False).fill(json.dumps(question))
    _ask(page)
    sent = _api(example_url, "POST", "/v1/query", question)
    reason = sent.json()["reason"]
    assert sent.status_code == reason["status"] == 422
    shown = [_text(page.locator(f"#refusal-{part}")) for part in ("code", "status", "detail")]
    assert shown == [reason["code"], str(reason["status"]), reason["detail"]]
    assert _text(page.locator("#structured-half")) == sent.content.decode("utf-8")
    assert page.locator("#refusal").is_visible() and not page.locator("#rows").is_visible()
    # The earlier answer's provenance is neither shown nor left in the page: not even the
    # digest of order_count, a metric this question never named.
    assert not page.locator("#provenance").is_visible()
    assert not page.locator("#chart").is_visible()
    kept = page.locator("#answer").inner_text() + _text(page.locator("#provenance"))
    assert digests["metric_digests"][0]["digest"] not in kept
    page.locator("#answer").screenshot(path=str(artifacts_dir() / "refusal.png"))


def test_an_answer_of_one_period_is_drawn_as_bars_with_titled_axes(
    page: Page, example_url: str
) -> None:
    _sign_in(page, example_url)
    one_year = {**EXAMPLE_QUESTION, "grain": "year"}
    page.get_by_label("Question JSON", exact=False).fill(json.dumps(one_year))
    _ask(page)
    answer = _api(example_url, "POST", "/v1/query", one_year).json()
    regions = {row[1] for row in answer["rows"]}
    assert {row[0] for row in answer["rows"]} == {"2024-01-01"} and len(regions) > 1
    assert page.locator("#chart rect").count() == len(regions)  # a bar per region
    assert page.locator("#chart polyline").count() == 0
    titles = page.locator("#chart text.axis-title").all_text_contents()
    assert titles == ["period", "revenue"]
    page.locator("#chart").screenshot(path=str(artifacts_dir() / "one_period.png"))


def test_every_control_has_a_label_and_the_keyboard_alone_gets_an_answer(
    page: Page, example_url: str
) -> None:
    _sign_in(page, example_url)
    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll('input, select, textarea, button')]
             .filter(c => !(c.labels && c.labels.length) && !c.getAttribute('aria-label')
                          && !(c.tagName === 'BUTTON' && c.textContent.trim()))
             .map(c => c.outerHTML)"""
    )
    assert unlabelled == []
    page.focus("#question-json")
    for _ in range(6):  # JSON box → Copy → Compile → Ask, in document order
        if page.evaluate("document.activeElement.id") == "ask":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "ask"
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-outcome='answer']")
    assert page.evaluate("document.activeElement.id") == "answer-heading"


def _hostile_deployment(target: Path) -> Path:
    """The MCP tests' hostile deployment, plus markup a browser would run if it were markup."""
    config = hostile_config(target)
    with duckdb.connect(str(config / "data" / "hostile.duckdb")) as connection:
        rows = [(HOSTILE_FIRST_DAY, cell, 1000 + i) for i, cell in enumerate(MARKUP)]
        connection.executemany("INSERT INTO hostile_rows VALUES (?, ?, ?)", rows)
    metric = config / "catalog" / "units.md"
    metric.write_bytes(metric.read_bytes() + "\n".join(MARKUP).encode("utf-8") + b"\n")
    return config


def test_the_hostile_corpus_is_shown_as_text_and_executes_nothing(
    page: Page, tmp_path: Path
) -> None:
    config = _hostile_deployment(tmp_path)
    with serving(config) as url:
        page.goto(url + "/")
        page.wait_for_selector("#metrics li")
        page.get_by_label("Question JSON", exact=False).fill(json.dumps(HOSTILE_QUESTION))
        _ask(page)
        with httpx.Client(base_url=url, timeout=30) as http:
            catalog = http.get("/v1/catalog").json()
            answer = http.post("/v1/query", json=HOSTILE_QUESTION).json()
        page.screenshot(path=str(artifacts_dir() / "hostile.png"))
    cells: list[str] = page.eval_on_selector_all(
        "#rows tr td:nth-child(2)", "cells => cells.map(c => c.textContent)"
    )
    # Every cell is the project's own escaping of the exact value (docs/text-format.md), so
    # nothing invisible or reordering reaches the reader and no cell draws a row.
    assert cells == [escape_cell(row[1]) for row in answer["rows"]]
    assert {escape_cell(markup) for markup in MARKUP} <= set(cells)
    description = _text(page.locator("#metrics li[data-metric='units'] .prose").first)
    written = catalog["metrics"][0]["description"]
    assert description == "\n".join(escape_text(line) for line in written.split("\n"))
    assert all(line in description for line in MARKUP)
    injected = page.evaluate(
        """() => ({
          pwned: window.__pwned === undefined ? null : window.__pwned,
          scripts: document.scripts.length,
          elements: document.querySelectorAll('img, iframe, style, system, data, a#forged, '
                                              + 'svg:not(#chart svg)').length,
          handlers: [...document.querySelectorAll('*')].filter(
            e => [...e.attributes].some(a => a.name.startsWith('on'))).length,
          links: document.querySelectorAll('a[href]').length,
        })"""
    )
    assert injected == {"pwned": None, "scripts": 1, "elements": 0, "handlers": 0, "links": 1}
    assert not [line for line in _logged(page) if "dialog" in line or "pageerror" in line]


def _yaml(text: str) -> str:
    """``text`` as a YAML double-quoted scalar (JSON's escapes for controls, the rest raw)."""
    return json.dumps(text, ensure_ascii=False)


HOSTILE_FILTER: Final = "68876.06 \u202e60.67886 \u2066\u200b\ufeff\U000e0041 \x1b[31m"
"""A filter value an example's author wrote: a bidi override, isolates, zero-width, a tag
character and an ANSI escape."""
_HOSTILE_EXAMPLE: Final = (
    "---\nkind: example\nname: one_hostile_label\nasked: ['Units of one label?']\n"
    "question:\n  metrics: [units]\n  grain: year\n"
    "  range: {start: 2024-01-01, end: 2025-01-01}\n  dimensions: [label]\n"
    f"  filters: [{{op: eq, dimension: tag, value: {_yaml(HOSTILE_FILTER)}}}]\n---\n"
)
_TAG: Final = (
    "  - name: tag\n    column: label\n"
    f"    values: [{_yaml(HOSTILE_FILTER)}, plain]\n    description: {_yaml(HOSTILE_FILTER)}\n"
)
"""A filterable dimension whose allowed value (and description) an author wrote hostile."""
_SHOWN_TEXT: Final = """() => {
  const shown = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const owner = node.parentElement.closest('[id]');
    shown.push([owner ? owner.id : 'body', node.data]);
  }
  // What a control shows (an option's value is the data a question sends, not shown).
  const visible = 'textarea, input:not([type=checkbox]):not([type=radio]):not([type=password])';
  for (const control of document.querySelectorAll(visible)) {
    shown.push([control.id || control.tagName, control.value]);
  }
  for (const element of document.querySelectorAll('[aria-label], [title]')) {
    shown.push([element.id || element.tagName, element.getAttribute('aria-label') || '']);
  }
  return shown;
}"""
TABS_SEPARATE: Final = frozenset({"text-half", "catalog-text"})
"""The text halves, where a raw tab is the column separator (docs/text-format.md)."""


def _raw_in(shown: list[list[str]]) -> list[tuple[str, str]]:
    """Every escape-set character shown raw, and where: everything but the line break (and the
    text halves' tab); the backslash is the escapes' own mark."""
    raw = set()
    for where, text in shown:
        for ch in set(text) - {"\n", "\\"}:
            if is_escaped(ch) and not (ch == "\t" and where in TABS_SEPARATE):
                raw.add((where, f"U+{ord(ch):04X}"))
    return sorted(raw)


def test_every_panel_shows_the_hostile_corpus_visibly(page: Page, tmp_path: Path) -> None:
    config = _hostile_deployment(tmp_path)
    (config / "catalog" / "example_hostile.md").write_text(_HOSTILE_EXAMPLE, encoding="utf-8")
    metric = config / "catalog" / "units.md"
    dimension = "    description: Hostile labels, one per corpus case.\n"
    metric.write_text(metric.read_text("utf-8").replace(dimension, dimension + _TAG), "utf-8")
    with serving(config) as url:
        page.goto(url + "/")
        page.wait_for_selector("#metrics li")
        page.get_by_text("The catalog as the agent reads it").click()
        page.locator("#catalog-text", has_text=re.compile(r"\S")).wait_for()
        page.get_by_role("button", name="Load example one_hostile_label").click()
        page.get_by_role("button", name="Compile (no data read)").click()
        page.wait_for_selector("#compiled:not([hidden])")
        page.locator("#compiled-params td").first.wait_for()
        loaded = page.get_by_label("Question JSON", exact=False).input_value()
        shown: list[list[str]] = page.evaluate(_SHOWN_TEXT)  # the example loaded, compiled
        _ask(page)  # the example's question: one hostile label
        page.get_by_label("Question JSON", exact=False).fill(json.dumps(HOSTILE_QUESTION))
        _ask(page)  # every hostile label
        with httpx.Client(base_url=url, timeout=30) as http:
            answer = http.post("/v1/query", json=HOSTILE_QUESTION).json()
        shown += page.evaluate(_SHOWN_TEXT)  # both answered
        structured = _text(page.locator("#structured-half"))
        page.screenshot(path=str(artifacts_dir() / "hostile-panels.png"), full_page=True)
    assert _raw_in(shown) == []
    # The JSON panels still hold the same JSON: only its own escapes were added.
    shown_answer = json.loads(structured)
    for body in (shown_answer, answer):
        del body["provenance"]["computed_at"]  # two asks
    assert shown_answer == answer
    assert "\\u202e" in structured
    assert json.loads(loaded)["filters"][0]["value"] == HOSTILE_FILTER
    assert "\\u202e60.67886" in loaded
