locals {
  services = toset([
    "aiplatform.googleapis.com", # Vertex AI text embeddings
    "apigateway.googleapis.com",
    "artifactregistry.googleapis.com",
    "cloudbuild.googleapis.com",
    "cloudfunctions.googleapis.com",
    "cloudscheduler.googleapis.com",
    "cloudtasks.googleapis.com",
    "firebaserules.googleapis.com", # deny-all security rules for client SDKs (firestore.tf)
    "firestore.googleapis.com",
    "iam.googleapis.com",
    "logging.googleapis.com",
    "run.googleapis.com",
    "secretmanager.googleapis.com",
    "servicecontrol.googleapis.com",
    "servicemanagement.googleapis.com",
    "storage.googleapis.com",
  ])
}

resource "google_project_service" "enabled" {
  for_each = local.services

  project = var.project_id
  service = each.value

  # Leave APIs enabled on `terraform destroy`; other workloads may use them.
  disable_on_destroy = false
}
