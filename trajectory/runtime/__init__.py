"""The runtime room: how traj behaves as a process: Ctrl-C (interrupts.py), worker pools
(pools.py), and disk faults as one line (diskfault.py).
"""
