"""The answer cache: a warm ask answered from a source's cache beside the same warm ask
computed (cache off), on the same 1M-row DuckDB file, interleaved in one run."""

import anyio

from bench.answer import ORDERS, bench_question, example_dir
from bench.serving import ask, serving
from bench.table import Figure, short

REPEAT = 30
CACHED = {"SUTURA__SOURCES__MAIN__CACHE__ENABLED": "true"}


def measure() -> list[Figure]:
    """Median warm ``ask_metric`` with the cache on (every ask after the first a hit) and off."""
    config = example_dir(2_000 if short() else ORDERS)
    question = bench_question()
    repeat = 3 if short() else REPEAT

    async def both() -> tuple[float, float]:
        async with serving(config) as computed, serving(config, CACHED) as cached:
            await ask(computed, question)
            await ask(cached, question)
            times: dict[str, list[float]] = {"computed": [], "cached": []}
            for _ in range(repeat):
                for name, service in (("computed", computed), ("cached", cached)):
                    start_at = anyio.current_time()
                    await ask(service, question)
                    times[name].append(anyio.current_time() - start_at)
            counts = cached.cache_counts()["main"]
            if counts.hits != repeat:
                raise RuntimeError(f"expected {repeat} cache hits, counted {counts.hits}")
            return tuple(sorted(t)[len(t) // 2] for t in times.values())  # type: ignore[return-value]

    computed, cached = anyio.run(both)
    return [
        Figure(
            "cache",
            "bench question, warm ask from the answer cache (median)",
            cached * 1e3,
            computed * 1e3,
            "ms",
            "≤ 0.20×",
            "the same ask computed (cache off)",
        )
    ]
