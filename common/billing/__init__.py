"""What a call costs and what was used: the price table in integer micro-dollars
(``pricing``) and one append-only usage record per priced call that delivered (``metering``).
"""
