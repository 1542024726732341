"""Offline Terraform gate: a schema-only local provider built from the cdktf packages (0032)."""
