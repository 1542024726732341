# The whole repository root is zipped and uploaded once; every function is built
# from the same object with a different entry point. Keep `excludes` in sync with
# ../.gcloudignore (archive_file does not read .gcloudignore).

data "archive_file" "source" {
  type        = "zip"
  source_dir  = "${path.module}/.."
  output_path = "${path.module}/.build/source.zip"

  excludes = [
    ".git",
    ".github",
    ".ci",
    ".venv",
    ".venv-tasks-emulator",
    ".venv-checkov",
    ".venv-lock",
    ".venv-train",
    "requirements-checkov.txt",
    "requirements-lock.txt",
    "requirements-model.lock",
    "requirements-tasks-emulator.lock",
    "requirements-checkov.lock",
    "requirements-train.txt",
    "requirements-train.lock",
    ".local",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "tests",
    "bench",
    "devtools",
    "Makefile",
    "requirements-test.txt",
    "requirements-tasks-emulator.txt",
    "docs",
    "terraform",
    "**/__pycache__",
    "**/*.pyc",
  ]
}

resource "google_storage_bucket" "source" {
  # checkov:skip=CKV_GCP_62: the bucket holds only the zipped source of this repository (no personal data, no secrets); Cloud Audit Logs record admin access, and data-access logs can be turned on per project
  # checkov:skip=CKV_GCP_78: objects are named by their content hash and never overwritten; any version is rebuilt from git, so versioning would only keep copies
  project  = var.project_id
  name     = "${var.project_id}-${var.name_prefix}-fn-source"
  location = var.region
  labels   = local.labels

  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = true

  depends_on = [google_project_service.enabled]
}

resource "google_storage_bucket_object" "source" {
  # The content hash in the name makes every code change a new object, which
  # in turn triggers a rebuild/redeploy of the functions.
  name   = "source/${data.archive_file.source.output_md5}.zip"
  bucket = google_storage_bucket.source.name
  source = data.archive_file.source.output_path
}
