"""The suite catalog: registrations as data and the trust they need to run (registrations.py,
trust.py), scaffolds of new suites (scaffold.py) and judge matrices (matrix.py)."""
