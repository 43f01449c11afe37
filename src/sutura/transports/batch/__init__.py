"""Batch rendering: a file of structured outcomes into text halves or validated JSON, streaming.

``records`` reads numbered records (JSON Lines, or one JSON document) with a byte cap;
``convert`` turns one record into its rendering or a typed :class:`~.convert.RecordError`;
``framing`` is the record separator of the text output and its reader; ``stream`` drives a
whole input to an output and counts; ``progress`` and ``atomic`` are the terminal bar and the
all-or-nothing output file. ``docs/batch.md`` is the user's guide.
"""
