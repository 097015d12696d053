"""The ingest room: JSON Lines in, validated events out, one all-or-nothing commit per file.

One pipeline: plain.py holds the line rules (and parse, for callers that need event objects);
staging.py stages a file's chunks by them; rules.py checks a batch's rules once over its
columns and returns located problems, worded there; batchplan.py decides and commits a file
(or already parsed events) through them; rows.py builds the events table's rows; jsonkeys.py
and patchcheck.py hold two rules the decoder cannot; recorder.py is the live API a harness
calls. tests/ingest_oracle.py keeps the per-event path the pipeline is held equal to.
"""
