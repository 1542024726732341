"""Loopback fakes of external services, speaking their real wire protocols."""
