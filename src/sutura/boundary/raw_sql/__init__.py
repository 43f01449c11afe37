"""The raw SQL tool's runners: one locked-down, read-only way to run a caller's statement per
source kind, and the audit record of every call. Started only when ``tools.run_sql.enabled``."""
