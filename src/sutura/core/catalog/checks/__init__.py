"""The documents checked together: names, references, relationships, derived metrics, knowledge
(worked questions resolved as ``ask_metric`` would), sources crossed, models against their
source's columns."""
