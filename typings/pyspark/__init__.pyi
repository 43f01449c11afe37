# The part of PySpark's Spark Connect client that sutura uses, checked against pyspark 4.3.
# PySpark ships its own annotations, but it comes only with the optional spark extra: these
# stubs type the Spark modules the same with or without it. Where PySpark says Any for a
# value sutura reads, the stub says object, so the reader narrows it; a name sutura does not
# use is left out, so a new use is added here first, against the installed source.
