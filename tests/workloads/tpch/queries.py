"""The official TPC-H query text of Q1, Q3, Q5, Q6, Q10, Q12 and Q14, with the specification's
validation substitution parameters (clause 2.4, "Validation"), written once for every engine.

Two things differ from the specification's text, both because no engine parses them as
written, and both without changing an answer:

- ``date '…' ± interval '…' day (3)`` (and the ``year``/``month`` forms) is written as the
  literal date it is with the validation parameters; each query says which expression it was.
- The row count the specification asks of Q3 (10) and Q10 (20) is a ``limit`` clause.

The tables are unqualified here, as in the specification; :mod:`tests.workloads.oracle` runs a
query against the workload's schema (``tpch``).
"""

from typing import Final, NamedTuple


class OfficialQuery(NamedTuple):
    """One query: its name (``Q1``), text, and the substitution parameters it holds."""

    name: str
    text: str
    parameters: str


Q1: Final = OfficialQuery(
    "Q1",
    # l_shipdate <= date '1998-12-01' - interval '90' day (3)
    """select
    l_returnflag,
    l_linestatus,
    sum(l_quantity) as sum_qty,
    sum(l_extendedprice) as sum_base_price,
    sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
    sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
    avg(l_quantity) as avg_qty,
    avg(l_extendedprice) as avg_price,
    avg(l_discount) as avg_disc,
    count(*) as count_order
from
    lineitem
where
    l_shipdate <= date '1998-09-02'
group by
    l_returnflag,
    l_linestatus
order by
    l_returnflag,
    l_linestatus""",
    "DELTA = 90",
)

Q3: Final = OfficialQuery(
    "Q3",
    """select
    l_orderkey,
    sum(l_extendedprice * (1 - l_discount)) as revenue,
    o_orderdate,
    o_shippriority
from
    customer,
    orders,
    lineitem
where
    c_mktsegment = 'BUILDING'
    and c_custkey = o_custkey
    and l_orderkey = o_orderkey
    and o_orderdate < date '1995-03-15'
    and l_shipdate > date '1995-03-15'
group by
    l_orderkey,
    o_orderdate,
    o_shippriority
order by
    revenue desc,
    o_orderdate
limit 10""",
    "SEGMENT = BUILDING, DATE = 1995-03-15",
)

Q5: Final = OfficialQuery(
    "Q5",
    # o_orderdate < date '1994-01-01' + interval '1' year
    """select
    n_name,
    sum(l_extendedprice * (1 - l_discount)) as revenue
from
    customer,
    orders,
    lineitem,
    supplier,
    nation,
    region
where
    c_custkey = o_custkey
    and l_orderkey = o_orderkey
    and l_suppkey = s_suppkey
    and c_nationkey = s_nationkey
    and s_nationkey = n_nationkey
    and n_regionkey = r_regionkey
    and r_name = 'ASIA'
    and o_orderdate >= date '1994-01-01'
    and o_orderdate < date '1995-01-01'
group by
    n_name
order by
    revenue desc""",
    "REGION = ASIA, DATE = 1994-01-01",
)

Q6: Final = OfficialQuery(
    "Q6",
    # l_shipdate < date '1994-01-01' + interval '1' year
    """select
    sum(l_extendedprice * l_discount) as revenue
from
    lineitem
where
    l_shipdate >= date '1994-01-01'
    and l_shipdate < date '1995-01-01'
    and l_discount between 0.06 - 0.01 and 0.06 + 0.01
    and l_quantity < 24""",
    "DATE = 1994-01-01, DISCOUNT = 0.06, QUANTITY = 24",
)

Q10: Final = OfficialQuery(
    "Q10",
    # o_orderdate < date '1993-10-01' + interval '3' month
    """select
    c_custkey,
    c_name,
    sum(l_extendedprice * (1 - l_discount)) as revenue,
    c_acctbal,
    n_name,
    c_address,
    c_phone,
    c_comment
from
    customer,
    orders,
    lineitem,
    nation
where
    c_custkey = o_custkey
    and l_orderkey = o_orderkey
    and o_orderdate >= date '1993-10-01'
    and o_orderdate < date '1994-01-01'
    and l_returnflag = 'R'
    and c_nationkey = n_nationkey
group by
    c_custkey,
    c_name,
    c_acctbal,
    c_phone,
    n_name,
    c_address,
    c_comment
order by
    revenue desc
limit 20""",
    "DATE = 1993-10-01",
)

Q12: Final = OfficialQuery(
    "Q12",
    # l_receiptdate < date '1994-01-01' + interval '1' year
    """select
    l_shipmode,
    sum(case
        when o_orderpriority = '1-URGENT'
            or o_orderpriority = '2-HIGH'
            then 1
        else 0
    end) as high_line_count,
    sum(case
        when o_orderpriority <> '1-URGENT'
            and o_orderpriority <> '2-HIGH'
            then 1
        else 0
    end) as low_line_count
from
    orders,
    lineitem
where
    o_orderkey = l_orderkey
    and l_shipmode in ('MAIL', 'SHIP')
    and l_commitdate < l_receiptdate
    and l_shipdate < l_commitdate
    and l_receiptdate >= date '1994-01-01'
    and l_receiptdate < date '1995-01-01'
group by
    l_shipmode
order by
    l_shipmode""",
    "SHIPMODE1 = MAIL, SHIPMODE2 = SHIP, DATE = 1994-01-01",
)

Q14: Final = OfficialQuery(
    "Q14",
    # l_shipdate < date '1995-09-01' + interval '1' month
    """select
    100.00 * sum(case
        when p_type like 'PROMO%'
            then l_extendedprice * (1 - l_discount)
        else 0
    end) / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from
    lineitem,
    part
where
    l_partkey = p_partkey
    and l_shipdate >= date '1995-09-01'
    and l_shipdate < date '1995-10-01'""",
    "DATE = 1995-09-01",
)

QUERIES: Final = {q.name: q for q in (Q1, Q3, Q5, Q6, Q10, Q12, Q14)}
"""Every query here, by name."""
