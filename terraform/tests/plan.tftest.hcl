# What `terraform apply` would create, checked offline (decision 0032; run by `make test` through
# `python -m devtools.tfprovider.gate`). The providers are mocked: Terraform checks every resource
# against the real google / google-beta / archive schema (served by devtools/tfprovider) and makes
# up the computed values (ids, emails, URLs), so the assertions are about this configuration's
# wiring, not about Google Cloud.

mock_provider "google" {
  # The project number is part of every deterministic Cloud Run URL.
  mock_data "google_project" {
    defaults = {
      number = "123456789012"
    }
  }
}

mock_provider "google-beta" {}

mock_provider "archive" {
  mock_data "archive_file" {
    defaults = {
      output_md5  = "0123456789abcdef0123456789abcdef"
      output_path = "source.zip"
    }
  }
}

variables {
  project_id                  = "test-project"
  email_from                  = "digests@example.org"
  sendgrid_webhook_public_key = "test-public-key"
}

# One run: each run block starts the three providers again (about 5 s here), and every assertion
# below names what it checks. Terraform applies against the mocks (no cloud is involved), so the
# computed values the assertions compare are known.
run "deployment" {
  # Functions: which exist, their entry points and ingress.
  assert {
    condition = jsonencode(keys(google_cloudfunctions2_function.fn)) == jsonencode([
      "chat", "content", "health", "knowledge", "legal", "mcp", "osint", "portal", "research",
      "search", "task_worker", "tracking", "tracking_dispatch", "usage", "webhooks",
    ])
    error_message = "Unexpected set of functions: ${jsonencode(keys(google_cloudfunctions2_function.fn))}"
  }

  assert {
    condition = alltrue([
      for k, f in google_cloudfunctions2_function.fn :
      f.service_config[0].ingress_settings == (
        contains(["tracking_dispatch", "task_worker"], k) ? "ALLOW_INTERNAL_ONLY" : "ALLOW_ALL"
      )
    ])
    error_message = "Only tracking_dispatch and task_worker may be internal-only; every other function is reached through the gateway."
  }

  assert {
    condition = alltrue([
      for k, f in google_cloudfunctions2_function.fn :
      f.build_config[0].entry_point == k && f.build_config[0].runtime == "python311"
    ])
    error_message = "Each function must run its own entry point of main.py on python311."
  }

  assert {
    condition = alltrue([
      for k, f in google_cloudfunctions2_function.fn :
      f.service_config[0].environment_variables["TASK_WORKER_URL"] == "https://ars-task-worker-123456789012.europe-west1.run.app"
    ])
    error_message = "TASK_WORKER_URL must be task_worker's deterministic Cloud Run URL."
  }

  # Invokers: the gateway calls the public functions, one caller per internal function.
  assert {
    condition = jsonencode(keys(google_cloud_run_service_iam_member.gateway_invoker)) == jsonencode([
      "chat", "content", "health", "knowledge", "legal", "mcp", "osint", "portal", "research",
      "search", "tracking", "usage", "webhooks",
    ])
    error_message = "Every public function, and only those, must be invokable by the gateway."
  }

  assert {
    condition = alltrue([
      for k, m in google_cloud_run_service_iam_member.gateway_invoker :
      m.member == "serviceAccount:${google_service_account.gateway.email}" && m.role == "roles/run.invoker"
      && m.service == google_cloudfunctions2_function.fn[k].name
    ])
    error_message = "Public functions are invoked by the gateway's service account only."
  }

  assert {
    condition     = google_cloud_run_service_iam_member.internal_invoker["tracking_dispatch"].member == "serviceAccount:${google_service_account.scheduler.email}"
    error_message = "tracking_dispatch must be invokable by Cloud Scheduler's account only."
  }

  assert {
    condition     = google_cloud_run_service_iam_member.internal_invoker["task_worker"].member == "serviceAccount:${google_service_account.invoker.email}"
    error_message = "task_worker must be invokable by the Cloud Tasks invoker account only."
  }

  assert {
    condition     = length(google_cloud_run_service_iam_member.internal_invoker) == 2
    error_message = "Only the two internal functions get an internal invoker binding."
  }

  # Cloud Scheduler: target and token audience of tracking_dispatch.
  assert {
    condition     = google_cloud_scheduler_job.tracking_dispatch["tracking_dispatch"].http_target[0].uri == "${google_cloudfunctions2_function.fn["tracking_dispatch"].service_config[0].uri}/internal/dispatch"
    error_message = "The Scheduler job must POST to tracking_dispatch's /internal/dispatch."
  }

  assert {
    condition     = google_cloud_scheduler_job.tracking_dispatch["tracking_dispatch"].http_target[0].http_method == "POST"
    error_message = "The Scheduler job must POST."
  }

  assert {
    condition     = google_cloud_scheduler_job.tracking_dispatch["tracking_dispatch"].http_target[0].oidc_token[0].audience == "https://ars-tracking-dispatch-123456789012.europe-west1.run.app"
    error_message = "The Scheduler's token audience must be tracking_dispatch's URL (TRACKING_DISPATCH_URL)."
  }

  assert {
    condition     = google_cloud_scheduler_job.tracking_dispatch["tracking_dispatch"].http_target[0].oidc_token[0].service_account_email == google_service_account.scheduler.email
    error_message = "The Scheduler must sign its token as the scheduler account."
  }

  assert {
    condition     = google_cloudfunctions2_function.fn["tracking"].service_config[0].environment_variables["TRACKING_DISPATCH_URL"] == google_cloud_scheduler_job.tracking_dispatch["tracking_dispatch"].http_target[0].oidc_token[0].audience
    error_message = "The functions must expect the audience the Scheduler sends."
  }

  # API Gateway: the routes of the OpenAPI document and their backends.
  assert {
    condition = alltrue([
      for path in [
        "/health", "/openapi.json", "/v1/chat/{path=**}", "/v1/tracking/{path=**}",
        "/v1/search", "/v1/search/{path=**}", "/v1/knowledge/{path=**}",
        "/v1/content/{path=**}", "/v1/legal/{path=**}", "/v1/research/{path=**}",
        "/v1/osint/{path=**}", "/v1/tasks/{path=**}", "/webhooks/idp", "/webhooks/sendgrid",
        "/v1/portal/{path=**}", "/v1/usage", "/portal", "/portal/{path=**}", "/mcp",
        "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
      ] : strcontains(base64decode(google_api_gateway_api_config.api.openapi_documents[0].document[0].contents), "\n  \"${path}\":\n")
    ])
    error_message = "The gateway's OpenAPI document lacks a route."
  }

  assert {
    condition = alltrue([
      for k in ["chat", "tracking", "search", "portal", "webhooks", "usage", "health"] :
      strcontains(
        base64decode(google_api_gateway_api_config.api.openapi_documents[0].document[0].contents),
        "address: ${google_cloudfunctions2_function.fn[k].service_config[0].uri}",
      )
    ])
    error_message = "The gateway must route to the public functions' URLs."
  }

  assert {
    condition = !strcontains(
      base64decode(google_api_gateway_api_config.api.openapi_documents[0].document[0].contents),
      google_cloudfunctions2_function.fn["task_worker"].service_config[0].uri,
    )
    error_message = "No gateway route may reach an internal function."
  }

  assert {
    condition     = google_api_gateway_api_config.api.gateway_config[0].backend_config[0].google_service_account == google_service_account.gateway.email
    error_message = "The gateway must call the functions as the gateway account."
  }

  # Firestore: the database and its composite indexes.
  assert {
    condition = (
      google_firestore_index.subscriptions_due.collection == "subscriptions"
      && [for f in google_firestore_index.subscriptions_due.fields : f.field_path if f.field_path != "__name__"] == ["active", "next_run_at"]
    )
    error_message = "subscriptions_due must index active, then next_run_at."
  }

  assert {
    condition     = google_firestore_database.db["main"].type == "FIRESTORE_NATIVE"
    error_message = "The database must be Firestore in native mode."
  }
}
