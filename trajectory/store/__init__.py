"""The store room: append-only Delta Lake tables (delta.py) on a backend (backend.py: the
contract; local.py: a folder on this machine; objstore.py: object storage), and the tables'
Arrow schemas (tables.py).
"""
