terraform {
  # 1.5: lifecycle postconditions on data sources (prerequisites.tf) and check semantics used here.
  required_version = ">= 1.5.0"
  required_providers {
    google = {
      source  = "hashicorp/google"
      version = "~> 7.0"
    }
    # google_project_service_identity (service-agents.tf) exists only in google-beta.
    google-beta = {
      source  = "hashicorp/google-beta"
      version = "~> 7.0"
    }
    # time_sleep: alert policies wait for their new log-based metrics (provider issue #11102), and
    # grants to new service agents wait for IAM propagation.
    time = {
      source  = "hashicorp/time"
      version = "~> 0.13"
    }
  }
}
