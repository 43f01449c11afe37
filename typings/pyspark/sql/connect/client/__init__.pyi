from pyspark.sql.connect.client.core import ChannelBuilder as ChannelBuilder
from pyspark.sql.connect.client.core import DefaultChannelBuilder as DefaultChannelBuilder
from pyspark.sql.connect.client.core import SparkConnectClient as SparkConnectClient
