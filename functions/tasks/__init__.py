"""Async jobs: task records, the task worker and GET /v1/tasks/{taskId}."""
