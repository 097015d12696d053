"""The suite catalog: what is known of suites without running them: registrations as data
(registrations.py), the trust a registered suite needs before it runs (trust.py), scaffolds of
new suites (scaffold.py).
"""
