"""The ingest room: JSON Lines in, validated events out, one all-or-nothing commit per file.

plain.py is the per-event path and the wording of every refusal; staging.py and batchplan.py
validate a large file in chunks; rows.py builds the events table's rows for both; jsonkeys.py
and patchcheck.py hold two rules the decoder cannot; recorder.py is the live API a harness calls.
"""
