terraform {
  required_version = ">= 1.6"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = "~> 6.0"
    }
    google-beta = {
      source  = "hashicorp/google-beta"
      version = "~> 6.0"
    }
    archive = {
      source = "hashicorp/archive"
      # >= 2.5 is needed for glob patterns ("**/__pycache__") in `excludes`.
      version = "~> 2.5"
    }
  }
}

provider "google" {
  project = var.project_id
  region  = var.region
}

# API Gateway resources are only available in the beta provider.
provider "google-beta" {
  project = var.project_id
  region  = var.region
}
