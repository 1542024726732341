# ---------------------------------------------------------------------------
# Service accounts
# ---------------------------------------------------------------------------

# Identity the functions run as.
resource "google_service_account" "runtime" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-runtime"
  display_name = "Advocacy Research Service - function runtime"

  depends_on = [google_project_service.enabled]
}

# Identity in the OIDC tokens Cloud Scheduler and Cloud Tasks attach when they
# call the internal functions (tracking_dispatch, task_worker).
resource "google_service_account" "invoker" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-invoker"
  display_name = "Advocacy Research Service - scheduler/tasks invoker"

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
# Runtime service account
# ---------------------------------------------------------------------------

resource "google_project_iam_member" "runtime" {
  for_each = toset([
    "roles/datastore.user",      # Firestore read/write
    "roles/cloudtasks.enqueuer", # create tasks on the queue
    "roles/aiplatform.user",     # Vertex AI text embeddings (search, knowledge)
  ])

  project = var.project_id
  role    = each.value
  member  = "serviceAccount:${google_service_account.runtime.email}"
}

# Creating a task with an OIDC token for the invoker SA requires actAs on it.
resource "google_service_account_iam_member" "runtime_acts_as_invoker" {
  service_account_id = google_service_account.invoker.name
  role               = "roles/iam.serviceAccountUser"
  member             = "serviceAccount:${google_service_account.runtime.email}"
}

# Secret accessor bindings are per secret, see secrets.tf.
# Invoker bindings on the functions are in functions.tf.

# ---------------------------------------------------------------------------
# Build service account
# ---------------------------------------------------------------------------

resource "google_project_iam_member" "build" {
  for_each = toset([
    "roles/cloudbuild.builds.builder", # read source, push image, write logs
  ])

  project = var.project_id
  role    = each.value
  member  = "serviceAccount:${google_service_account.build.email}"
}
