from pyspark.sql.dataframe import DataFrame

class DataFrameWriter:
    def __init__(self, df: DataFrame) -> None: ...
    def mode(self, saveMode: str | None) -> DataFrameWriter: ...
    def saveAsTable(
        self,
        name: str,
        format: str | None = None,
        mode: str | None = None,
        partitionBy: str | list[str] | None = None,
        **options: str | int | float | bool | None,
    ) -> None: ...
    def insertInto(self, tableName: str, overwrite: bool | None = None) -> None: ...
