# Queue for tracking research jobs and legal-guidance jobs. Tasks are created
# by the functions (TASKS_QUEUE) with an HTTP target of TASK_WORKER_URL and an
# OIDC token for TASKS_SERVICE_ACCOUNT.
resource "google_cloud_tasks_queue" "tracking_research" {
  project  = var.project_id
  location = var.region
  name     = var.tasks_queue_name

  retry_config {
    max_attempts  = 5
    min_backoff   = "10s"
    max_backoff   = "600s"
    max_doublings = 4
  }

  rate_limits {
    max_dispatches_per_second = var.tasks_max_dispatches_per_second
    max_concurrent_dispatches = var.tasks_max_concurrent_dispatches
  }

  depends_on = [google_project_service.enabled]
}
