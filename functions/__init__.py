"""One package per endpoint group; each has routes.py, models.py and service.py."""
