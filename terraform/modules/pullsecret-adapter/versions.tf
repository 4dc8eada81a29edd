terraform {
  required_version = ">= 1.5.0"
  required_providers {
    google = {
      source  = "hashicorp/google"
      version = "~> 7.0"
    }
    # time_sleep: alert policies wait for their new log-based metrics (provider issue #11102).
    time = {
      source  = "hashicorp/time"
      version = "~> 0.13"
    }
    # random_id: the custom role id suffix.
    random = {
      source  = "hashicorp/random"
      version = "~> 3.7"
    }
  }
}
