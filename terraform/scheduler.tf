# Calls tracking_dispatch every few minutes; it finds due subscriptions and
# enqueues one task per subscription on the Cloud Tasks queue.
resource "google_cloud_scheduler_job" "tracking_dispatch" {
  for_each = contains(keys(local.functions), "tracking_dispatch") ? toset(["tracking_dispatch"]) : toset([])

  project     = var.project_id
  region      = var.region
  name        = "${var.name_prefix}-tracking-dispatch"
  description = "Dispatch due tracking subscriptions"
  schedule    = var.scheduler_cron
  time_zone   = var.scheduler_time_zone

  attempt_deadline = "320s"

  retry_config {
    retry_count = 1
  }

  http_target {
    http_method = "POST"
    uri         = "${google_cloudfunctions2_function.fn[each.key].service_config[0].uri}/internal/dispatch"
    body        = base64encode("{}")
    headers = {
      "Content-Type" = "application/json"
    }

    oidc_token {
      service_account_email = google_service_account.scheduler.email
      # The function checks this audience (TRACKING_DISPATCH_URL) and the token's email.
      audience = local.tracking_dispatch_url
    }
  }

  depends_on = [google_cloud_run_service_iam_member.internal_invoker]
}
