from pyspark.logger.logger import PySparkLogger as PySparkLogger
