"""The runtime room: how traj behaves as a process: Ctrl-C (interrupts.py), worker pools
(pools.py), disk faults as one line (diskfault.py), and points a test can wait on (marks.py).
"""
