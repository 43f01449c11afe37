"""``sutura import dbt``: a dbt project's semantic models and metrics as catalog documents."""
