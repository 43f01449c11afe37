"""The pure core: values in, values out; no I/O, no clocks, no drivers."""
