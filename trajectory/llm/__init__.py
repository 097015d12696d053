"""The LLM room: asking LLM judges and recording their answers (ask.py), and which recorded
judgements count (trust.py).
"""
