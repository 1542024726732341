# Shared values. Resources are split by concern into the other *.tf files:
#   apis.tf       project services
#   firestore.tf  database, composite indexes, TTL policies
#   iam.tf        service accounts and project-level roles
#   secrets.tf    Secret Manager secrets (no values) and accessor bindings
#   storage.tf    source bucket and zipped repository
#   functions.tf  one Cloud Function (2nd gen) per entry point + invoker IAM
#   tasks.tf      Cloud Tasks queue
#   scheduler.tf  Cloud Scheduler job -> tracking_dispatch
#   gateway.tf    API Gateway (google-beta) in front of the public functions

data "google_project" "this" {
  project_id = var.project_id
}

locals {
  labels = merge({ app = "advocacy-research", managed-by = "terraform" }, var.labels)

  # Cloud Run gives every service a deterministic URL of the form
  # https://SERVICE-PROJECT_NUMBER.REGION.run.app. It is used for values that a
  # function needs about another function of the same for_each (TASK_WORKER_URL),
  # which cannot reference the resource itself without a dependency cycle.
  run_url_suffix = "${data.google_project.this.number}.${var.region}.run.app"
}
