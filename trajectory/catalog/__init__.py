"""The suite catalog: scaffolds of new suites (scaffold.py) and judge matrices (matrix.py).
"""
