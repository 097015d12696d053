"""Inspect AI scorers as a traj suite (see adapter.py); inspect-ai is imported only when used."""
