output "gateway_url" {
  description = "Base URL of the API (API Gateway default hostname). Use it as PUBLIC_BASE_URL unless a custom domain is in front."
  value       = "https://${google_api_gateway_gateway.gateway.default_hostname}"
}

output "function_urls" {
  description = "Cloud Run URL of each deployed function, by entry point. Public ones only accept calls from the gateway service account."
  value       = { for k, f in google_cloudfunctions2_function.fn : k => f.service_config[0].uri }
}

output "task_worker_url" {
  description = "TASK_WORKER_URL given to the functions (deterministic Cloud Run URL of task_worker)."
  value       = local.task_worker_url
}

output "tasks_queue" {
  description = "Full resource name of the Cloud Tasks queue (TASKS_QUEUE)."
  value       = google_cloud_tasks_queue.tracking_research.id
}

output "tasks_queue_name" {
  description = "Short name of the Cloud Tasks queue."
  value       = google_cloud_tasks_queue.tracking_research.name
}

output "service_accounts" {
  description = "Service account emails created for the service."
  value = {
    invoker   = google_service_account.invoker.email
    scheduler = google_service_account.scheduler.email
    gateway   = google_service_account.gateway.email
    build     = google_service_account.build.email
  }
}

output "function_service_accounts" {
  description = "The identity each function runs as (one per function, decision 0033)."
  value       = { for k, sa in google_service_account.fn : k => sa.email }
}

output "secret_ids" {
  description = "Secret Manager secret IDs that need a version (gcloud secrets versions add), by environment variable."
  value       = { for env, s in google_secret_manager_secret.secrets : env => s.secret_id }
}

output "source_bucket" {
  description = "Bucket holding the zipped function source."
  value       = google_storage_bucket.source.name
}
