"""The typed expression vocabulary of the catalog (measures, filters, dimensions, time)."""
