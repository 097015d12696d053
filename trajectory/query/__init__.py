"""The query room: the read views and the user-query sandbox (sql.py), its limits (limits.py),
and current verdicts as a person means them (verdicts.py).
"""
