"""Who calls: consumers, the owners of API keys (``consumers``); the keys themselves, their
format, hashing and verification (``keys``); the identity provider's OIDC ID tokens (``oidc``);
and internal callers such as Cloud Scheduler and Cloud Tasks (``internal``).
"""
