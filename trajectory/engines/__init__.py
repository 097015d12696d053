"""Engines that spread judging and ingest over more than one machine.

The local engine is the default (trajectory/judging/execution.py: this process, or a pool of
spawned processes). ``ray`` (trajectory/engines/ray_engine.py, ``pip install 'traj[ray]'``)
runs the same work on a Ray cluster: an existing one at an address, or a local one on this
machine's cores that listens on 127.0.0.1 only.
"""

from __future__ import annotations

ENGINES = ("local", "ray")
