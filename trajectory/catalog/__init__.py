"""The suite catalog: what is known of suites without running them (scaffolds of new suites in
scaffold.py).
"""
