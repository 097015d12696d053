"""The reports room: summary.md, scores.jsonl and metrics.json (report.py), the share allow-list
(share.py), export back to the interchange format (export.py), and what `traj show` and
`traj runs` print (show.py).
"""
