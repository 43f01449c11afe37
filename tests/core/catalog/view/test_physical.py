"""The physical-schema listing: names escaped, descriptions quoted or omitted, total."""

import msgspec
import pytest

from sutura.core.catalog.view.physical import physical_schema_text
from sutura.core.definitions.model import Column
from sutura.core.nouns.notices import PHYSICAL_NOTICE
from sutura.core.nouns.prose import CatalogProse, catalog_notice
from sutura.core.text.escape import escape_text, is_escaped
from sutura.core.text.untrusted import PROSE, Case
from tests.core.untrusted_samples import TABLE_AND_COLUMN_NAMES, pinned


def _listing(prose: CatalogProse, description: str = "", column: str = "") -> str:
    definitions = pinned()
    model = definitions.catalog.models[0]
    columns = (Column(name="amt_eur_net", type="DECIMAL(12,2)", description=column),)
    model = msgspec.structs.replace(model, description=description, columns=columns)
    catalog = msgspec.structs.replace(definitions.catalog, models=(model,))
    return physical_schema_text(msgspec.structs.replace(definitions, catalog=catalog), prose)


def test_the_listing_names_every_model_table_and_column_after_its_notices() -> None:
    lines = _listing(CatalogProse.QUOTED, "One row per sale.", "Net, in euros.").split("\n")
    assert lines == [
        PHYSICAL_NOTICE,
        catalog_notice(CatalogProse.QUOTED),
        "model: sales",
        "source: tbl_src",
        "table: fact_sales_2024",
        "> One row per sale.",
        "column: amt_eur_net (DECIMAL(12,2))",
        "> Net, in euros.",
        "definitions: v7 (digest " + "3f2a" * 16 + ")",
    ]
    assert [n for n in TABLE_AND_COLUMN_NAMES[:2] if n in "\n".join(lines)] == list(
        TABLE_AND_COLUMN_NAMES[:2]
    )


@pytest.mark.parametrize("prose", list(CatalogProse))
@pytest.mark.parametrize("case", PROSE, ids=lambda c: c.name)
def test_corpus_prose_in_a_model_or_column_is_quoted_or_omitted(
    case: Case, prose: CatalogProse
) -> None:
    text = _listing(prose, "m: " + case.value, "c: " + case.value)
    lines = text.split("\n")
    quoted = [
        f"> {escape_text(line)}"
        for body in ("m: ", "c: ")
        for line in (body + case.value).split("\n")
    ]
    assert [line for line in lines if line.startswith(">")] == (
        quoted if prose is CatalogProse.QUOTED else []
    )
    assert lines.count(PHYSICAL_NOTICE) == 1 and text.splitlines() == lines
    assert not [ch for ch in text if is_escaped(ch) and ch not in "\n\t\\"]
    text.encode("utf-8")
