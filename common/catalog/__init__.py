"""The topic catalog (``topics``, from ``data/topics.toml``) and what a request for news names
(``interests``).
"""
