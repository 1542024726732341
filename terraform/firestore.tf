# The main database, and the sensitive collections in databases of their own, which only the
# functions that need them may reach (iam.tf, decision 0051): the suppression list and
# third-party recipients' consents (recipients), and the OSINT opt-out list, audit log and
# subject counts (osint).
locals {
  restricted_databases = {
    recipients = var.firestore_recipients_database
    osint      = var.firestore_osint_database
  }
  databases = merge({ main = var.firestore_database }, local.restricted_databases)
}

resource "google_firestore_database" "db" {
  for_each = local.databases

  project     = var.project_id
  name        = each.value
  location_id = var.firestore_location
  type        = "FIRESTORE_NATIVE"

  delete_protection_state = "DELETE_PROTECTION_ENABLED"
  # Keep the data if the Terraform resource is ever removed.
  deletion_policy = "ABANDON"

  # Point-in-time recovery: any minute of the last 7 days can be read or exported (README,
  # "Restoring Firestore"). `usage` is the only billing record.
  point_in_time_recovery_enablement = "POINT_IN_TIME_RECOVERY_ENABLED"

  depends_on = [google_project_service.enabled]
}

moved {
  from = google_firestore_database.db
  to   = google_firestore_database.db["main"]
}

# ---------------------------------------------------------------------------
# Recovery: a daily backup kept firestore_backup_retention_days, and no client SDK access
# ---------------------------------------------------------------------------

resource "google_firestore_backup_schedule" "daily" {
  for_each = google_firestore_database.db

  project  = var.project_id
  database = each.value.name

  retention = "${var.firestore_backup_retention_days * 86400}s"

  daily_recurrence {}
}

moved {
  from = google_firestore_backup_schedule.daily
  to   = google_firestore_backup_schedule.daily["main"]
}

# Deny-all security rules: the database is reached only by the functions (server libraries,
# IAM); a leaked web API key or a Firebase client gets nothing.
resource "google_firebaserules_ruleset" "firestore" {
  project = var.project_id

  source {
    files {
      name    = "firestore.rules"
      content = file("${path.module}/firestore.rules")
    }
  }

  depends_on = [google_project_service.enabled, google_firestore_database.db]

  lifecycle {
    create_before_destroy = true
  }
}

resource "google_firebaserules_release" "firestore" {
  for_each = google_firestore_database.db

  project      = var.project_id
  name         = each.value.name == "(default)" ? "cloud.firestore" : "cloud.firestore/${each.value.name}"
  ruleset_name = "projects/${var.project_id}/rulesets/${google_firebaserules_ruleset.firestore.name}"
}

moved {
  from = google_firebaserules_release.firestore
  to   = google_firebaserules_release.firestore["main"]
}

# ---------------------------------------------------------------------------
# Composite indexes
# ---------------------------------------------------------------------------

# List a user's subscriptions newest first, with a cursor on the document name.
resource "google_firestore_index" "subscriptions_by_user" {
  project    = var.project_id
  database   = google_firestore_database.db["main"].name
  collection = "subscriptions"

  fields {
    field_path = "user_id"
    order      = "ASCENDING"
  }

  fields {
    field_path = "created_at"
    order      = "DESCENDING"
  }

  fields {
    field_path = "__name__"
    order      = "DESCENDING"
  }
}

# Dispatcher: active subscriptions whose next run is due.
resource "google_firestore_index" "subscriptions_due" {
  project    = var.project_id
  database   = google_firestore_database.db["main"].name
  collection = "subscriptions"

  fields {
    field_path = "active"
    order      = "ASCENDING"
  }

  fields {
    field_path = "next_run_at"
    order      = "ASCENDING"
  }
}

# Usage API and admin CLI: one consumer's records of one operation over a range of days, in
# `usage` (billed) and `usage_unbilled` (answered but not billed; decision 0039).
resource "google_firestore_index" "usage_by_consumer_operation_day" {
  for_each = toset(["usage", "usage_unbilled"])

  project    = var.project_id
  database   = google_firestore_database.db["main"].name
  collection = each.value

  fields {
    field_path = "consumer_id"
    order      = "ASCENDING"
  }

  fields {
    field_path = "operation"
    order      = "ASCENDING"
  }

  fields {
    field_path = "day"
    order      = "ASCENDING"
  }
}

# The usage index existed before it had a twin for usage_unbilled: keep it, do not recreate it.
moved {
  from = google_firestore_index.usage_by_consumer_operation_day
  to   = google_firestore_index.usage_by_consumer_operation_day["usage"]
}

# OSINT audit log: a consumer's entries newest first (GET /v1/osint/audit, with a cursor on the
# document name), and for operators the entries about one subject (admin osint-audit).
resource "google_firestore_index" "osint_audit_by_consumer" {
  project    = var.project_id
  database   = google_firestore_database.db["osint"].name
  collection = "osint_audit"

  fields {
    field_path = "consumer_id"
    order      = "ASCENDING"
  }

  fields {
    field_path = "created_at"
    order      = "DESCENDING"
  }

  fields {
    field_path = "__name__"
    order      = "DESCENDING"
  }
}

resource "google_firestore_index" "osint_audit_by_subject" {
  project    = var.project_id
  database   = google_firestore_database.db["osint"].name
  collection = "osint_audit"

  fields {
    field_path = "subject_key"
    order      = "ASCENDING"
  }

  fields {
    field_path = "created_at"
    order      = "DESCENDING"
  }
}

# ---------------------------------------------------------------------------
# TTL policies (documents are deleted some time after `expires_at` passes)
# ---------------------------------------------------------------------------

locals {
  # collection => database (main: the main one; else a key of restricted_databases)
  ttl_fields = {
    webhook_receipts     = "main"
    ratelimit_windows    = "main"
    tasks                = "main"       # task records (TASK_RECORD_TTL_DAYS)
    pause_tokens         = "main"       # used pause links, kept until the link expires
    idempotency_keys     = "main"       # Idempotency-Key records and answers, 24 h
    osint_audit          = "osint"      # OSINT audit entries (OSINT_AUDIT_RETENTION_DAYS)
    osint_subject_counts = "osint"      # profiles per subject per day, kept two days
    confirmation_counts  = "recipients" # confirmation emails per account per day, two days
  }
}

resource "google_firestore_field" "ttl" {
  for_each = local.ttl_fields

  project    = var.project_id
  database   = google_firestore_database.db[each.value].name
  collection = each.key
  field      = "expires_at"

  # An empty block enables the TTL policy on this field.
  ttl_config {}

  # An empty block disables single-field indexes on the TTL timestamp, as
  # recommended for TTL fields (nothing queries on it; avoids write hotspots).
  index_config {}
}

# ---------------------------------------------------------------------------
# Search and knowledge (functions/search, functions/knowledge, common/search/retrieval.py)
# ---------------------------------------------------------------------------

locals {
  # Every searchable collection: the five tables and the knowledge corpus's passages.
  searchable = toset(["campaigns", "organizations", "public_figures", "actions", "content", "knowledge_passages"])
}

# Semantic search: nearest vectors among those of the deployment's embedding model
# (find_nearest pre-filtered on embedding_model == EMBEDDINGS_BACKEND's model id).
resource "google_firestore_index" "vectors_by_model" {
  for_each = local.searchable

  project    = var.project_id
  database   = google_firestore_database.db["main"].name
  collection = each.key

  fields {
    field_path = "embedding_model"
    order      = "ASCENDING"
  }

  fields {
    field_path = "embedding"
    vector_config {
      dimension = var.embeddings_dimension
      flat {}
    }
  }
}

# Knowledge search with tags: pre-filtered on the tags too (array_contains_any).
resource "google_firestore_index" "knowledge_vectors_by_tags" {
  project    = var.project_id
  database   = google_firestore_database.db["main"].name
  collection = "knowledge_passages"

  fields {
    field_path = "embedding_model"
    order      = "ASCENDING"
  }

  fields {
    field_path   = "tags"
    array_config = "CONTAINS"
  }

  fields {
    field_path = "embedding"
    vector_config {
      dimension = var.embeddings_dimension
      flat {}
    }
  }
}

# Fields never queried get no single-field index: the vectors (vector search uses the indexes
# above; the relevance judge's judge_vector is read with its document, decision 0067) and the
# text index's maps (common/search/postings.py, decision 0048): each record's
# term_counts is read back by the importers only (a record holds up to 400 terms: 400 index
# entries a write otherwise), and the postings of text_postings (a head's packed JSON string,
# the spilled shards' maps) are read by document id.
locals {
  unindexed_fields = merge(
    { for c in local.searchable : "${c}.embedding" => { collection = c, field = "embedding" } },
    { for c in local.searchable : "${c}.term_counts" => { collection = c, field = "term_counts" } },
    { for c in local.searchable : "${c}.judge_vector" => { collection = c, field = "judge_vector" } },
    { "text_postings.postings" = { collection = "text_postings", field = "postings" } },
    { "text_postings.packed" = { collection = "text_postings", field = "packed" } },
  )
}

resource "google_firestore_field" "unindexed" {
  for_each = local.unindexed_fields

  project    = var.project_id
  database   = google_firestore_database.db["main"].name
  collection = each.value.collection
  field      = each.value.field

  index_config {}
}

# Semantic search with a filter: pre-filtered on one of the record's filter_keys
# ("status=active", "topics=cage-free"; decision 0048), so a selective filter still finds the
# nearest records that can match.
resource "google_firestore_index" "vectors_by_filter" {
  for_each = setsubtract(local.searchable, ["knowledge_passages"])

  project    = var.project_id
  database   = google_firestore_database.db["main"].name
  collection = each.key

  fields {
    field_path = "embedding_model"
    order      = "ASCENDING"
  }

  fields {
    field_path   = "filter_keys"
    array_config = "CONTAINS"
  }

  fields {
    field_path = "embedding"
    vector_config {
      dimension = var.embeddings_dimension
      flat {}
    }
  }
}
