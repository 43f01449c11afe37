"""The eight TPC-H tables as the specification defines them (clause 1.4).

An *identifier* is ``INTEGER``, except the order key, ``BIGINT``: past scale factor 300 order
keys no longer fit in 32 bits, and a catalog should meet both widths. *Fixed text* is
``CHAR(n)``, *variable text* ``VARCHAR(n)``, *decimal* ``DECIMAL(15,2)``. Every column is
``NOT NULL``; each table's primary key is the specification's.
"""

from typing import Final

from tests.workloads.tables import BigInt, Char, Column, Date, Decimal, Integer, Table, Varchar

SCHEMA: Final = "tpch"
"""The schema (Spark: database) holding the tables on every engine: ``tpch.lineitem``."""

_MONEY: Final = Decimal(15, 2)

REGION: Final = Table(
    "region",
    (
        Column("r_regionkey", Integer()),
        Column("r_name", Char(25)),
        Column("r_comment", Varchar(152)),
    ),
    primary_key=("r_regionkey",),
)
NATION: Final = Table(
    "nation",
    (
        Column("n_nationkey", Integer()),
        Column("n_name", Char(25)),
        Column("n_regionkey", Integer()),
        Column("n_comment", Varchar(152)),
    ),
    primary_key=("n_nationkey",),
)
PART: Final = Table(
    "part",
    (
        Column("p_partkey", Integer()),
        Column("p_name", Varchar(55)),
        Column("p_mfgr", Char(25)),
        Column("p_brand", Char(10)),
        Column("p_type", Varchar(25)),
        Column("p_size", Integer()),
        Column("p_container", Char(10)),
        Column("p_retailprice", _MONEY),
        Column("p_comment", Varchar(23)),
    ),
    primary_key=("p_partkey",),
)
SUPPLIER: Final = Table(
    "supplier",
    (
        Column("s_suppkey", Integer()),
        Column("s_name", Char(25)),
        Column("s_address", Varchar(40)),
        Column("s_nationkey", Integer()),
        Column("s_phone", Char(15)),
        Column("s_acctbal", _MONEY),
        Column("s_comment", Varchar(101)),
    ),
    primary_key=("s_suppkey",),
)
PARTSUPP: Final = Table(
    "partsupp",
    (
        Column("ps_partkey", Integer()),
        Column("ps_suppkey", Integer()),
        Column("ps_availqty", Integer()),
        Column("ps_supplycost", _MONEY),
        Column("ps_comment", Varchar(199)),
    ),
    primary_key=("ps_partkey", "ps_suppkey"),
)
CUSTOMER: Final = Table(
    "customer",
    (
        Column("c_custkey", Integer()),
        Column("c_name", Varchar(25)),
        Column("c_address", Varchar(40)),
        Column("c_nationkey", Integer()),
        Column("c_phone", Char(15)),
        Column("c_acctbal", _MONEY),
        Column("c_mktsegment", Char(10)),
        Column("c_comment", Varchar(117)),
    ),
    primary_key=("c_custkey",),
)
ORDERS: Final = Table(
    "orders",
    (
        Column("o_orderkey", BigInt()),
        Column("o_custkey", Integer()),
        Column("o_orderstatus", Char(1)),
        Column("o_totalprice", _MONEY),
        Column("o_orderdate", Date()),
        Column("o_orderpriority", Char(15)),
        Column("o_clerk", Char(15)),
        Column("o_shippriority", Integer()),
        Column("o_comment", Varchar(79)),
    ),
    primary_key=("o_orderkey",),
)
LINEITEM: Final = Table(
    "lineitem",
    (
        Column("l_orderkey", BigInt()),
        Column("l_partkey", Integer()),
        Column("l_suppkey", Integer()),
        Column("l_linenumber", Integer()),
        Column("l_quantity", _MONEY),
        Column("l_extendedprice", _MONEY),
        Column("l_discount", _MONEY),
        Column("l_tax", _MONEY),
        Column("l_returnflag", Char(1)),
        Column("l_linestatus", Char(1)),
        Column("l_shipdate", Date()),
        Column("l_commitdate", Date()),
        Column("l_receiptdate", Date()),
        Column("l_shipinstruct", Char(25)),
        Column("l_shipmode", Char(10)),
        Column("l_comment", Varchar(44)),
    ),
    primary_key=("l_orderkey", "l_linenumber"),
)

TABLES: Final = (REGION, NATION, PART, SUPPLIER, PARTSUPP, CUSTOMER, ORDERS, LINEITEM)
