# ---------------------------------------------------------------------------
# Project / placement
# ---------------------------------------------------------------------------

variable "project_id" {
  description = "Google Cloud project ID that hosts the service."
  type        = string
}

variable "region" {
  description = "Region for Cloud Functions, Cloud Tasks, Cloud Scheduler, the source bucket and the API Gateway."
  type        = string
  default     = "europe-west1"
}

variable "name_prefix" {
  description = "Prefix for resource names (functions, service accounts, queue-independent resources). Lowercase letters, digits and hyphens."
  type        = string
  default     = "ars"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,14}$", var.name_prefix))
    error_message = "name_prefix must be 2-15 chars of lowercase letters, digits or hyphens, starting with a letter."
  }
}

variable "environment" {
  description = "Value of the ENVIRONMENT variable passed to the functions."
  type        = string
  default     = "prod"
}

variable "service_version" {
  description = "Value of SERVICE_VERSION passed to the functions (e.g. a release tag or git SHA)."
  type        = string
  default     = "0.1.0"
}

variable "log_level" {
  description = "Value of LOG_LEVEL passed to the functions."
  type        = string
  default     = "INFO"
}

# ---------------------------------------------------------------------------
# Firestore
# ---------------------------------------------------------------------------

variable "firestore_location" {
  description = "Location of the Firestore database (regional such as europe-west1, or multi-region such as eur3). Cannot be changed after creation."
  type        = string
  default     = "europe-west1"
}

variable "firestore_database" {
  description = "Firestore database ID (FIRESTORE_DATABASE)."
  type        = string
  default     = "(default)"
}

variable "firestore_recipients_database" {
  description = "Firestore database of the email suppression list and third-party recipients' consents (FIRESTORE_RECIPIENTS_DATABASE): only the functions that mail or manage recipients may reach it (decision 0051)."
  type        = string
  default     = "recipients"
}

variable "firestore_osint_database" {
  description = "Firestore database of the OSINT opt-out list, audit log and subject counts (FIRESTORE_OSINT_DATABASE): only the osint function may reach it (decision 0051)."
  type        = string
  default     = "osint"
}

variable "firestore_backup_retention_days" {
  description = "How long each daily Firestore backup is kept, in days (1-49: daily backups are kept at most 7 weeks)."
  type        = number
  default     = 14

  validation {
    condition     = var.firestore_backup_retention_days >= 1 && var.firestore_backup_retention_days <= 49
    error_message = "firestore_backup_retention_days must be between 1 and 49."
  }
}

variable "firestore_timeout_s" {
  description = "Value of FIRESTORE_TIMEOUT_S: deadline of one Firestore call in seconds, retries included (0 < x <= 60)."
  type        = number
  default     = 5
}

variable "key_cache_ttl_s" {
  description = "Value of KEY_CACHE_TTL_S: how long a verified API key is trusted in process, in seconds (0-300)."
  type        = number
  default     = 30
}

variable "auth_failures_per_address" {
  description = "AUTH_FAILURES_PER_ADDRESS: failed authentications one client address may make at once per instance before it gets 429 without any database read (0: no limit)."
  type        = number
  default     = 20
}

variable "client_address_hops" {
  description = "CLIENT_ADDRESS_HOPS: which X-Forwarded-For entry, from the right, is the client's address. Behind API Gateway and Cloud Run's front end that is 2 (check it once on a live request: README, Deploy)."
  type        = number
  default     = 2
}

# ---------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------

variable "deploy_monolith_api" {
  description = "Also deploy the `api` entry point, which serves every route from a single function (not routed by the gateway)."
  type        = bool
  default     = false
}

variable "min_instances" {
  description = "Minimum instance count for each public function (0 allows scale to zero)."
  type        = number
  default     = 0
}

variable "max_instances" {
  description = "Maximum instance count for each function."
  type        = number
  default     = 10
}

variable "public_base_url" {
  description = "PUBLIC_BASE_URL (omitted when empty): externally visible base URL (used in emails, e.g. pause links). Leave empty on the first apply, then set it to the `gateway_url` output (or a custom domain) and apply again."
  type        = string
  default     = ""
}

# ---------------------------------------------------------------------------
# Tasks / scheduler
# ---------------------------------------------------------------------------

variable "tasks_queue_name" {
  description = "Cloud Tasks queue name. Note: a deleted queue name cannot be reused for about 7 days."
  type        = string
  default     = "tracking-research"
}

variable "tasks_max_dispatches_per_second" {
  description = "Cloud Tasks rate limit: maximum dispatches per second."
  type        = number
  default     = 5
}

variable "tasks_max_concurrent_dispatches" {
  description = "Cloud Tasks rate limit: maximum concurrent dispatches."
  type        = number
  default     = 10
}

variable "scheduler_cron" {
  description = "Cron schedule on which Cloud Scheduler calls tracking_dispatch."
  type        = string
  default     = "*/5 * * * *"
}

variable "scheduler_time_zone" {
  description = "Time zone used to interpret scheduler_cron."
  type        = string
  default     = "Etc/UTC"
}

# ---------------------------------------------------------------------------
# Email
# ---------------------------------------------------------------------------

variable "email_from" {
  description = "EMAIL_FROM: sender address for SendGrid emails (must be a verified sender in SendGrid)."
  type        = string
}

variable "sendgrid_webhook_public_key" {
  description = "SENDGRID_WEBHOOK_PUBLIC_KEY: the verification key of SendGrid's Signed Event Webhook (base64, Settings > Mail Settings > Event Webhook). Bounces, drops, spam reports and unsubscribes reported there stop all email to the address."
  type        = string
}

# ---------------------------------------------------------------------------
# LLM
# ---------------------------------------------------------------------------

variable "llm_backend" {
  description = "LLM_BACKEND: offline (built-in engine, no provider) or openai (an OpenAI-compatible Chat Completions endpoint)."
  type        = string
  default     = "offline"
}

variable "llm_base_url" {
  description = "LLM_BASE_URL: base URL of the LLM API."
  type        = string
  default     = ""
}

variable "llm_model" {
  description = "LLM_MODEL: model name passed to the LLM API."
  type        = string
  default     = ""
}

variable "llm_auth" {
  description = "LLM_AUTH: key (send LLM_API_KEY) or google (an access token from the runtime service account, for Vertex AI)."
  type        = string
  default     = "google"
}

variable "enable_llm_api_key" {
  description = "Create the llm-api-key secret and mount it as LLM_API_KEY. A secret version must exist before the functions are deployed."
  type        = bool
  default     = false
}

# ---------------------------------------------------------------------------
# Identity provider (OIDC)
# ---------------------------------------------------------------------------

variable "oidc_issuer" {
  description = "OIDC_ISSUER: issuer of end-user ID tokens accepted by the portal."
  type        = string
  default     = ""
}

variable "oidc_audience" {
  description = "OIDC_AUDIENCE: expected audience of end-user ID tokens."
  type        = string
  default     = ""
}

variable "oidc_jwks_url" {
  description = "OIDC_JWKS_URL: JWKS endpoint used to verify end-user ID tokens."
  type        = string
  default     = ""
}

# ---------------------------------------------------------------------------
# Misc
# ---------------------------------------------------------------------------

variable "labels" {
  description = "Labels applied to the resources that support them."
  type        = map(string)
  default     = {}
}

# ---------------------------------------------------------------------------
# Embeddings (search and knowledge)
# ---------------------------------------------------------------------------

variable "embeddings_model" {
  description = "EMBEDDINGS_MODEL: Vertex AI text embedding model."
  type        = string
  default     = "text-embedding-005"
}

variable "embeddings_dimension" {
  description = "EMBEDDINGS_DIMENSION: vector size asked of the model; also the dimension of the Firestore vector indexes (changing it needs `python -m admin reindex`)."
  type        = number
  default     = 768
}

variable "embeddings_location" {
  description = "EMBEDDINGS_LOCATION: Vertex AI region of the embedding model."
  type        = string
  default     = "europe-west1"
}
