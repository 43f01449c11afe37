from pyspark.errors.exceptions.base import PySparkException as PySparkException
