"""The LLM room: asking LLM judges and recording their answers (ask.py); which recorded
judgements count is judging's (trajectory/judging/trust.py).
"""
