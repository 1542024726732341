locals {
  # Entry point (function name in ../main.py) -> deployment settings.
  # public = true : called through API Gateway (gateway SA is the only invoker).
  # public = false: internal, called by Cloud Scheduler / Cloud Tasks with an
  #                 OIDC token for the invoker SA; ingress is internal-only.
  all_functions = {
    health            = { public = true, memory = "256M", timeout = 10 }
    api               = { public = true, memory = "512M", timeout = 300 }
    chat              = { public = true, memory = "512M", timeout = 300 }
    tracking          = { public = true, memory = "256M", timeout = 60 }
    search            = { public = true, memory = "512M", timeout = 120 }
    knowledge         = { public = true, memory = "512M", timeout = 120 }
    content           = { public = true, memory = "512M", timeout = 120 }
    legal             = { public = true, memory = "512M", timeout = 300 }
    research          = { public = true, memory = "1Gi", timeout = 540 }
    osint             = { public = true, memory = "512M", timeout = 300 }
    webhooks          = { public = true, memory = "256M", timeout = 30 }
    portal            = { public = true, memory = "256M", timeout = 60 }
    usage             = { public = true, memory = "256M", timeout = 30 }
    mcp               = { public = true, memory = "1Gi", timeout = 540 } # runs any tool, research and OSINT included
    tracking_dispatch = { public = false, memory = "256M", timeout = 300 }
    task_worker       = { public = false, memory = "1Gi", timeout = 900 }
  }

  # Entry points that ../main.py defines today (tests/unit/test_deploy_config.py keeps this
  # list and main.py in step). The others are planned; each joins when its issue lands.
  implemented = [
    "health", "api", "chat", "tracking", "usage", "webhooks", "portal",
    "legal", "research", "search", "knowledge", "content", "osint", "tracking_dispatch",
    "task_worker", "mcp",
  ]

  # `api` serves every route from one function; only deployed on request.
  functions = {
    for entry_point, cfg in local.all_functions : entry_point => cfg
    if contains(local.implemented, entry_point) && (entry_point != "api" || var.deploy_monolith_api)
  }

  # Cloud Functions / Cloud Run names cannot contain underscores.
  function_names = {
    for entry_point in keys(local.all_functions) :
    entry_point => "${var.name_prefix}-${replace(entry_point, "_", "-")}"
  }

  task_worker_url = "https://${local.function_names["task_worker"]}-${local.run_url_suffix}"
  # Deterministic Cloud Run URL of tracking_dispatch: the audience of the Scheduler's token.
  tracking_dispatch_url = "https://${local.function_names["tracking_dispatch"]}-${local.run_url_suffix}"

  # Internal function -> the only account that may invoke it (and that its code accepts).
  internal_callers = {
    tracking_dispatch = google_service_account.scheduler.email # Cloud Scheduler
    task_worker       = google_service_account.invoker.email   # Cloud Tasks
  }

  # Non-secret configuration shared by every function.
  function_env = {
    ENVIRONMENT          = var.environment
    GOOGLE_CLOUD_PROJECT = var.project_id
    FIRESTORE_DATABASE   = var.firestore_database
    # The databases of the sensitive collections (decision 0051); IAM decides who reaches them.
    FIRESTORE_RECIPIENTS_DATABASE = var.firestore_recipients_database
    FIRESTORE_OSINT_DATABASE      = var.firestore_osint_database
    FIRESTORE_TIMEOUT_S           = tostring(var.firestore_timeout_s)
    KEY_CACHE_TTL_S               = tostring(var.key_cache_ttl_s)
    # Per-address limit of failed authentication, before any Firestore read (decision 0034).
    AUTH_FAILURES_PER_ADDRESS = tostring(var.auth_failures_per_address)
    CLIENT_ADDRESS_HOPS       = tostring(var.client_address_hops)
    LOG_LEVEL                 = var.log_level
    SERVICE_VERSION           = var.service_version

    TASKS_BACKEND         = "cloudtasks"
    TASKS_QUEUE           = google_cloud_tasks_queue.tracking_research.id # projects/P/locations/L/queues/Q
    TASK_WORKER_URL       = local.task_worker_url
    TASKS_SERVICE_ACCOUNT = google_service_account.invoker.email
    # Cloud Scheduler's own account: the task queue's cannot call tracking_dispatch.
    SCHEDULER_SERVICE_ACCOUNT = google_service_account.scheduler.email
    TRACKING_DISPATCH_URL     = local.tracking_dispatch_url
    INTERNAL_AUTH             = "oidc" # task_worker / tracking_dispatch accept only Google OIDC tokens

    EMAIL_BACKEND               = "sendgrid"
    EMAIL_FROM                  = var.email_from
    SENDGRID_WEBHOOK_PUBLIC_KEY = var.sendgrid_webhook_public_key

    LLM_BACKEND  = var.llm_backend
    LLM_BASE_URL = var.llm_base_url
    LLM_MODEL    = var.llm_model
    LLM_AUTH     = var.llm_auth

    OIDC_ISSUER   = var.oidc_issuer
    OIDC_AUDIENCE = var.oidc_audience
    OIDC_JWKS_URL = var.oidc_jwks_url

    PUBLIC_BASE_URL = var.public_base_url

    EMBEDDINGS_BACKEND   = "vertex"
    EMBEDDINGS_MODEL     = var.embeddings_model
    EMBEDDINGS_DIMENSION = tostring(var.embeddings_dimension)
    EMBEDDINGS_LOCATION  = var.embeddings_location
  }
}

resource "google_cloudfunctions2_function" "fn" {
  # checkov:skip=CKV_GCP_124: public functions must take ALLOW_ALL: API Gateway calls them from outside the VPC (internal-and-gclb would refuse it); only the gateway's account holds run.invoker, internal functions are ALLOW_INTERNAL_ONLY
  for_each = local.functions

  project     = var.project_id
  location    = var.region
  name        = local.function_names[each.key]
  description = "Advocacy Research Service: ${each.key}"
  labels      = local.labels

  build_config {
    runtime         = "python311"
    entry_point     = each.key
    service_account = google_service_account.build.id

    source {
      storage_source {
        bucket = google_storage_bucket.source.name
        object = google_storage_bucket_object.source.name
      }
    }
  }

  service_config {
    available_memory   = each.value.memory
    timeout_seconds    = each.value.timeout
    min_instance_count = each.value.public ? var.min_instances : 0
    max_instance_count = var.max_instances

    ingress_settings               = each.value.public ? "ALLOW_ALL" : "ALLOW_INTERNAL_ONLY"
    all_traffic_on_latest_revision = true
    service_account_email          = google_service_account.fn[each.key].email

    # Unset optional values are left out rather than passed as "".
    environment_variables = { for k, v in local.function_env : k => v if v != "" }

    # Only the secrets this function's code reads (local.function_access in iam.tf).
    dynamic "secret_environment_variables" {
      for_each = toset(local.function_secrets[each.key])
      content {
        key        = secret_environment_variables.value
        project_id = var.project_id
        secret     = google_secret_manager_secret.secrets[secret_environment_variables.value].secret_id
        version    = "latest"
      }
    }
  }

  depends_on = [
    google_project_service.enabled,
    google_project_iam_member.build,
    google_project_iam_member.fn,
    google_secret_manager_secret_iam_member.fn_accessor,
  ]
}

# ---------------------------------------------------------------------------
# Invoker bindings (2nd gen functions are Cloud Run services: roles/run.invoker)
# Callers authenticate to the API with Bearer API keys checked by the functions;
# at the platform level only these identities may invoke.
# ---------------------------------------------------------------------------

resource "google_cloud_run_service_iam_member" "gateway_invoker" {
  for_each = { for k, cfg in local.functions : k => cfg if cfg.public }

  project  = var.project_id
  location = google_cloudfunctions2_function.fn[each.key].location
  service  = google_cloudfunctions2_function.fn[each.key].name
  role     = "roles/run.invoker"
  member   = "serviceAccount:${google_service_account.gateway.email}"
}

# Each internal function is invokable by its one caller's account only.
resource "google_cloud_run_service_iam_member" "internal_invoker" {
  for_each = { for k, cfg in local.functions : k => cfg if !cfg.public }

  project  = var.project_id
  location = google_cloudfunctions2_function.fn[each.key].location
  service  = google_cloudfunctions2_function.fn[each.key].name
  role     = "roles/run.invoker"
  member   = "serviceAccount:${local.internal_callers[each.key]}"
}
