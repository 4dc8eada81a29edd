terraform {
  # 1.7: removed blocks that forget, without destroying, what earlier versions managed (upgrade.tf).
  required_version = ">= 1.7.0"
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
    # random: only for the removed random_id of earlier versions (upgrade.tf).
    random = {
      source  = "hashicorp/random"
      version = "~> 3.7"
    }
    time = {
      source  = "hashicorp/time"
      version = "~> 0.13"
    }
  }
}
