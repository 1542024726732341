# ---------------------------------------------------------------------------
# Service accounts
# ---------------------------------------------------------------------------

# One identity per function (decision 0033): each holds only the roles and secrets its
# code uses (local.function_access below). A leak or a bug in a public function cannot read
# another function's secrets or act outside its own needs.
resource "google_service_account" "fn" {
  for_each = local.functions

  project      = var.project_id
  account_id   = "${var.name_prefix}-${local.function_access[each.key].sa}"
  display_name = "Advocacy Research Service - ${each.key} function"

  depends_on = [google_project_service.enabled]
}

# Identity in the OIDC tokens Cloud Tasks attaches when it calls task_worker: the only
# account that may invoke it.
resource "google_service_account" "invoker" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-invoker"
  display_name = "Advocacy Research Service - Cloud Tasks invoker of task_worker"

  depends_on = [google_project_service.enabled]
}

# Identity in the OIDC token Cloud Scheduler attaches when it calls tracking_dispatch: the only
# account that may invoke it (the functions that may act as the task invoker cannot dispatch).
resource "google_service_account" "scheduler" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-scheduler"
  display_name = "Advocacy Research Service - Cloud Scheduler invoker of tracking_dispatch"

  depends_on = [google_project_service.enabled]
}

# Identity API Gateway uses to call the public functions.
resource "google_service_account" "gateway" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-gateway"
  display_name = "Advocacy Research Service - API Gateway backend caller"

  depends_on = [google_project_service.enabled]
}

# Identity Cloud Build uses to build the function containers from the source zip.
resource "google_service_account" "build" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-build"
  display_name = "Advocacy Research Service - function builds"

  depends_on = [google_project_service.enabled]
}

# ---------------------------------------------------------------------------
# What each function may do (read the code before changing: decision 0033)
# ---------------------------------------------------------------------------

locals {
  datastore = "roles/datastore.user" # Firestore read/write, on the main database only
  # Get one document by its name, on the main database only: all GET /health reads (the
  # probe of functions/system/service.py). A custom role (below), not roles/datastore.viewer,
  # which can also list and query every collection (decision 0063).
  probe         = "projects/${var.project_id}/roles/${local.probe_role_id}"
  probe_role_id = "${replace(var.name_prefix, "-", "_")}_health_probe"
  # roles/datastore.user on one restricted database (firestore.tf, decision 0051): the email
  # suppression list and third-party consents; the OSINT opt-out list, audit log and counts.
  recipients = "recipients"
  osint      = "osint"
  vertex     = "roles/aiplatform.user"     # Vertex AI: embeddings, and the LLM with llm_auth = "google"
  enqueuer   = "roles/cloudtasks.enqueuer" # creates tasks (with an OIDC token for the invoker SA)

  # Entry point -> sa: service account id suffix (<= 9 chars), secrets: the environment
  # variables of local.secrets it mounts, roles: project roles. Kept in step with the code by
  # tests/unit/test_least_privilege.py (which module reads which secret, which group enqueues).
  #   SENDGRID_API_KEY  : only task_worker sends email (digests, confirmations, legal answers).
  #   PAUSE_LINK_SECRET : task_worker signs pause/confirm/unsubscribe links; tracking checks them.
  #   IDP_WEBHOOK_SECRET: only webhooks verifies the identity provider's signatures.
  #   LLM_API_KEY       : the functions that call the LLM (chat, content, research, task_worker).
  function_access = {
    health            = { sa = "health", secrets = [], roles = [local.probe] }
    api               = { sa = "api", secrets = keys(local.secrets), roles = [local.datastore, local.recipients, local.osint, local.vertex, local.enqueuer] }
    chat              = { sa = "chat", secrets = ["LLM_API_KEY"], roles = [local.datastore, local.osint, local.vertex] }
    tracking          = { sa = "tracking", secrets = ["PAUSE_LINK_SECRET"], roles = [local.datastore, local.recipients, local.osint, local.enqueuer] }
    search            = { sa = "search", secrets = [], roles = [local.datastore, local.vertex] }
    knowledge         = { sa = "knowledge", secrets = [], roles = [local.datastore, local.vertex] }
    content           = { sa = "content", secrets = ["LLM_API_KEY"], roles = [local.datastore, local.osint, local.vertex] }
    legal             = { sa = "legal", secrets = [], roles = [local.datastore, local.vertex, local.enqueuer] }
    research          = { sa = "research", secrets = ["LLM_API_KEY"], roles = [local.datastore, local.osint, local.vertex] }
    osint             = { sa = "osint", secrets = [], roles = [local.datastore, local.osint, local.vertex] }
    webhooks          = { sa = "webhooks", secrets = ["IDP_WEBHOOK_SECRET"], roles = [local.datastore, local.recipients] }
    portal            = { sa = "portal", secrets = [], roles = [local.datastore] }
    usage             = { sa = "usage", secrets = [], roles = [local.datastore] }
    mcp               = { sa = "mcp", secrets = ["LLM_API_KEY"], roles = [local.datastore, local.recipients, local.osint, local.vertex, local.enqueuer] }
    tracking_dispatch = { sa = "dispatch", secrets = [], roles = [local.datastore, local.enqueuer] }
    task_worker       = { sa = "worker", secrets = ["SENDGRID_API_KEY", "PAUSE_LINK_SECRET", "LLM_API_KEY"], roles = [local.datastore, local.recipients, local.osint, local.vertex, local.enqueuer] }
  }

  # Deployed function -> its secrets that exist (LLM_API_KEY only with enable_llm_api_key).
  function_secrets = {
    for fn, _ in local.functions : fn => [
      for env in local.function_access[fn].secrets : env if contains(keys(local.secrets), env)
    ]
  }

  # "<function> <role>" => the project role and, for Firestore, the one database it is
  # conditioned on (main, recipients or osint).
  function_roles = merge([
    for fn, _ in local.functions : {
      for role in local.function_access[fn].roles : "${fn} ${role}" => {
        function = fn
        role     = contains(keys(local.restricted_databases), role) ? local.datastore : role
        database = contains([local.datastore, local.probe], role) ? var.firestore_database : lookup(local.restricted_databases, role, null)
      }
    }
  ]...)

  # Functions that create tasks: they need actAs on the invoker SA for the task's OIDC token.
  enqueuing_functions = toset([
    for fn, _ in local.functions : fn if contains(local.function_access[fn].roles, local.enqueuer)
  ])
}

# What /health may do in Firestore: get a document by its name (the health probe), nothing else.
resource "google_project_iam_custom_role" "health_probe" {
  project     = var.project_id
  role_id     = local.probe_role_id
  title       = "Advocacy Research Service - health probe"
  description = "Get one Firestore document by its name: what GET /health reads."
  permissions = ["datastore.entities.get"]

  depends_on = [google_project_service.enabled]
}

resource "google_project_iam_member" "fn" {
  for_each = local.function_roles

  project = var.project_id
  role    = each.value.role
  member  = "serviceAccount:${google_service_account.fn[each.value.function].email}"

  # Firestore access is per database (IAM conditions on resource.name): a function reaches
  # the restricted databases only where its access row names them (decision 0051).
  dynamic "condition" {
    for_each = each.value.database == null ? [] : [each.value.database]
    content {
      title       = "firestore-${replace(condition.value, "/[()]/", "")}"
      description = "Only the ${condition.value} Firestore database"
      expression  = "resource.name == \"projects/${var.project_id}/databases/${condition.value}\""
    }
  }

  depends_on = [google_project_iam_custom_role.health_probe] # local.probe names it
}

# Creating a task with an OIDC token for the invoker SA requires actAs on it: only the
# functions that enqueue get it.
resource "google_service_account_iam_member" "fn_acts_as_invoker" {
  for_each = local.enqueuing_functions

  service_account_id = google_service_account.invoker.name
  role               = "roles/iam.serviceAccountUser"
  member             = "serviceAccount:${google_service_account.fn[each.key].email}"
}

# Secret accessor bindings are per secret and per function, see secrets.tf.
# Invoker bindings on the functions are in functions.tf.

# ---------------------------------------------------------------------------
# Build service account
# ---------------------------------------------------------------------------

resource "google_project_iam_member" "build" {
  # Narrowed from roles/cloudbuild.builds.builder (which can also create and delete buckets and
  # objects, publish to Pub/Sub and more) to what a function build does, as listed in
  # https://cloud.google.com/run/docs/configuring/services/build-service-account.
  for_each = toset([
    "roles/logging.logWriter",       # build logs
    "roles/artifactregistry.writer", # push the image to gcf-artifacts
    "roles/storage.objectViewer",    # read the source zip (gcf-v2-sources-*, the source bucket)
  ])

  project = var.project_id
  role    = each.value
  member  = "serviceAccount:${google_service_account.build.email}"
}
