# Secrets are declared here WITHOUT values: operators add versions with
# `gcloud secrets versions add` (see README.md). A secret must have at least one
# enabled version before the functions that mount it can be deployed.

locals {
  # Environment variable name -> Secret Manager secret ID.
  secrets = merge(
    {
      SENDGRID_API_KEY   = "sendgrid-api-key"
      IDP_WEBHOOK_SECRET = "idp-webhook-secret"
      PAUSE_LINK_SECRET  = "pause-link-secret"
    },
    var.enable_llm_api_key ? { LLM_API_KEY = "llm-api-key" } : {},
  )
}

resource "google_secret_manager_secret" "secrets" {
  for_each = local.secrets

  project   = var.project_id
  secret_id = each.value
  labels    = local.labels

  replication {
    auto {}
  }

  depends_on = [google_project_service.enabled]
}

locals {
  # "<function> <ENV>" -> who reads which secret: each function only the secrets it mounts.
  secret_readers = merge([
    for fn, envs in local.function_secrets : {
      for env in envs : "${fn} ${env}" => { function = fn, env = env }
    }
  ]...)
}

resource "google_secret_manager_secret_iam_member" "fn_accessor" {
  for_each = local.secret_readers

  project   = var.project_id
  secret_id = google_secret_manager_secret.secrets[each.value.env].secret_id
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.fn[each.value.function].email}"
}
