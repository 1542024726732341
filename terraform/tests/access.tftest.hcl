# Who can read which secret, and who holds which role (decision 0033), checked offline with the
# mocked providers of the gate (decision 0032). tests/unit/test_least_privilege.py checks the
# same table against the code's imports; this file checks what Terraform makes of it.

mock_provider "google" {
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

run "secrets_and_roles" {
  # Secret readers: exactly these (function, secret) pairs, each as the function's own account.
  assert {
    condition = jsonencode(keys(google_secret_manager_secret_iam_member.fn_accessor)) == jsonencode([
      "task_worker PAUSE_LINK_SECRET", "task_worker SENDGRID_API_KEY",
      "tracking PAUSE_LINK_SECRET", "webhooks IDP_WEBHOOK_SECRET",
    ])
    error_message = "Unexpected secret readers: ${jsonencode(keys(google_secret_manager_secret_iam_member.fn_accessor))}"
  }

  assert {
    condition = alltrue([
      for k, m in google_secret_manager_secret_iam_member.fn_accessor :
      m.member == "serviceAccount:${google_service_account.fn[split(" ", k)[0]].email}"
      && m.secret_id == google_secret_manager_secret.secrets[split(" ", k)[1]].secret_id
      && m.role == "roles/secretmanager.secretAccessor"
    ])
    error_message = "Each secret binding must grant accessor on that secret to that function's own account."
  }

  assert {
    condition = alltrue([
      for k in ["chat", "portal", "webhooks", "health", "search", "usage"] :
      length([
        for s in google_cloudfunctions2_function.fn[k].service_config[0].secret_environment_variables :
        s if contains(["SENDGRID_API_KEY", "PAUSE_LINK_SECRET"], s.key)
      ]) == 0
    ])
    error_message = "The public chat, portal, webhooks, health, search and usage functions must not mount the SendGrid key or the pause-link secret."
  }

  assert {
    condition = jsonencode(sort([
      for s in google_cloudfunctions2_function.fn["task_worker"].service_config[0].secret_environment_variables : s.key
    ])) == jsonencode(["PAUSE_LINK_SECRET", "SENDGRID_API_KEY"])
    error_message = "task_worker mounts the SendGrid key and the pause-link secret (LLM_API_KEY only when enabled)."
  }

  # One identity per function, none shared.
  assert {
    condition = length(distinct([
      for k, f in google_cloudfunctions2_function.fn : f.service_config[0].service_account_email
    ])) == length(google_cloudfunctions2_function.fn)
    error_message = "Every function must run as its own service account."
  }

  assert {
    condition = alltrue([
      for k, f in google_cloudfunctions2_function.fn :
      f.service_config[0].service_account_email == google_service_account.fn[k].email
    ])
    error_message = "Each function must run as google_service_account.fn[<its name>]."
  }

  # Roles: Vertex AI where embeddings or the LLM run, the task queue only where tasks are created.
  assert {
    condition = jsonencode(sort([
      for k, m in google_project_iam_member.fn : split(" ", k)[0] if m.role == "roles/aiplatform.user"
    ])) == jsonencode(["chat", "content", "knowledge", "legal", "mcp", "osint", "research", "search", "task_worker"])
    error_message = "roles/aiplatform.user goes to the functions that embed text or call the LLM, and only those."
  }

  assert {
    condition = jsonencode(sort([
      for k, m in google_project_iam_member.fn : split(" ", k)[0] if m.role == "roles/cloudtasks.enqueuer"
    ])) == jsonencode(["legal", "mcp", "task_worker", "tracking", "tracking_dispatch"])
    error_message = "roles/cloudtasks.enqueuer goes to the functions that create tasks, and only those."
  }

  assert {
    condition     = jsonencode(sort(keys(google_service_account_iam_member.fn_acts_as_invoker))) == jsonencode(["legal", "mcp", "task_worker", "tracking", "tracking_dispatch"])
    error_message = "Only the functions that create tasks may act as the task invoker."
  }

  assert {
    condition = jsonencode([
      for k, m in google_project_iam_member.fn : [m.role, m.condition[0].expression] if startswith(k, "health ")
      ]) == jsonencode([[
        "projects/test-project/roles/ars_health_probe",
        "resource.name == \"projects/test-project/databases/(default)\"",
    ]])
    error_message = "health holds one role: the health probe, on the main database only (GET /health reads one document)."
  }

  assert {
    condition     = jsonencode(google_project_iam_custom_role.health_probe.permissions) == jsonencode(["datastore.entities.get"])
    error_message = "The health probe may get a Firestore document by its name, nothing else."
  }

  assert {
    condition = jsonencode(sort([for k, m in google_project_iam_member.build : m.role])) == jsonencode([
      "roles/artifactregistry.writer", "roles/logging.logWriter", "roles/storage.objectViewer",
    ])
    error_message = "The build account holds only the roles a function build needs."
  }

  # Firestore per database (decision 0051): every datastore grant is conditioned on one
  # database; the recipients and osint databases only where the access table names them.
  assert {
    condition = alltrue([
      for k, m in google_project_iam_member.fn :
      length(m.condition) == 1 if m.role == "roles/datastore.user"
    ])
    error_message = "Every roles/datastore.user grant must be conditioned on one database."
  }

  assert {
    condition = jsonencode(sort([
      for k, m in google_project_iam_member.fn : split(" ", k)[0]
      if try(m.condition[0].expression, "") == "resource.name == \"projects/test-project/databases/recipients\""
    ])) == jsonencode(["mcp", "task_worker", "tracking", "webhooks"])
    error_message = "The recipients database (suppression list, consents) is reached by task_worker, tracking, webhooks and mcp (its subscription tools) only."
  }

  assert {
    condition = jsonencode(sort([
      for k, m in google_project_iam_member.fn : split(" ", k)[0]
      if try(m.condition[0].expression, "") == "resource.name == \"projects/test-project/databases/osint\""
    ])) == jsonencode(["chat", "content", "mcp", "osint", "research", "task_worker", "tracking"])
    error_message = "The osint database (opt-out list, audit log) is reached by osint, chat (the assistant's company and person answers keep the OSINT rules), mcp (its OSINT tools), and the doors that leave out opted-out people and audit keywords naming a person (content, research, tracking and task_worker's digests; decision 0058) only."
  }

  assert {
    condition = length([
      for k, m in google_project_iam_member.fn : k
      if try(m.condition[0].expression, "") == "resource.name == \"projects/test-project/databases/(default)\""
    ]) == length(local.functions)
    error_message = "Every function reaches the main database (health only to get a document, with the probe role)."
  }

  assert {
    condition = alltrue([
      for k in ["portal", "usage", "search", "knowledge", "legal", "tracking_dispatch"] :
      length([for g, m in google_project_iam_member.fn : g if startswith(g, "${k} ") && m.role == "roles/datastore.user"]) == 1
    ])
    error_message = "The public portal, usage, search, knowledge, legal and dispatch functions reach the main database only."
  }


  assert {
    condition     = google_firestore_field.ttl["osint_audit"].database == "osint" && google_firestore_field.ttl["confirmation_counts"].database == "recipients" && google_firestore_field.ttl["tasks"].database == "(default)"
    error_message = "Each TTL policy is on the database that holds its collection."
  }

  # Recovery: PITR, a daily backup with retention, deny-all rules released for the database.
  assert {
    condition     = alltrue([for db in google_firestore_database.db : db.point_in_time_recovery_enablement == "POINT_IN_TIME_RECOVERY_ENABLED"]) && length(google_firestore_database.db) == 3
    error_message = "Each of the three Firestore databases must have point-in-time recovery."
  }

  assert {
    condition     = alltrue([for db in google_firestore_database.db : db.delete_protection_state == "DELETE_PROTECTION_ENABLED"])
    error_message = "Each Firestore database must have delete protection."
  }

  assert {
    condition     = alltrue([for b in google_firestore_backup_schedule.daily : b.retention == "1209600s" && length(b.daily_recurrence) == 1]) && jsonencode(sort(keys(google_firestore_backup_schedule.daily))) == jsonencode(["main", "osint", "recipients"])
    error_message = "A daily backup of each database, kept 14 days by default."
  }

  assert {
    condition = (
      google_firebaserules_release.firestore["main"].name == "cloud.firestore"
      && google_firebaserules_release.firestore["osint"].name == "cloud.firestore/osint"
      && google_firebaserules_release.firestore["recipients"].name == "cloud.firestore/recipients"
      && strcontains(google_firebaserules_ruleset.firestore.source[0].files[0].content, "allow read, write: if false;")
    )
    error_message = "Deny-all security rules must be released for each database."
  }
}

run "llm_api_key_readers" {
  variables {
    enable_llm_api_key = true
  }

  assert {
    condition = jsonencode(sort([
      for k, m in google_secret_manager_secret_iam_member.fn_accessor : split(" ", k)[0] if endswith(k, " LLM_API_KEY")
    ])) == jsonencode(["chat", "content", "mcp", "research", "task_worker"])
    error_message = "LLM_API_KEY is readable by the functions that call the LLM, and only those."
  }
}
