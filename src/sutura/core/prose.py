"""Catalog prose: the operator's decision whether catalog authors' words reach an agent."""

from enum import StrEnum


class CatalogProse(StrEnum):
    """``prompt.catalog_prose``: quote the authors' prose, or omit it everywhere it is carried."""

    QUOTED = "quoted"
    OMITTED = "omitted"
