# Upgrading from 0.1.0's first layout: resources this module no longer manages are forgotten, not
# destroyed (Terraform >= 1.7). Destroying them would break a running deployment:
# - the Artifact Registry repository that held the job image (now a prerequisite; docs/deployment.md, "Before
#   the first apply"): destroying it would delete the image the job runs;
# - the CMEK grant to each target project's Secret Manager agent (now the key owner's): removing it
#   would leave every hyperfleet-* secret of those projects undecryptable;
# - the per-project custom role and bindings (now modules/pullsecret-tenant-project): kept working
#   until the tenant module's bindings exist; delete them by hand afterwards (docs/deployment.md, "Upgrading from the first layout").
removed {
  from = google_artifact_registry_repository.images
  lifecycle {
    destroy = false
  }
}

removed {
  from = google_kms_crypto_key_iam_member.secret_manager_agent
  lifecycle {
    destroy = false
  }
}

removed {
  from = google_project_iam_custom_role.secret_manager
  lifecycle {
    destroy = false
  }
}

removed {
  from = google_project_iam_member.job_secret_manager
  lifecycle {
    destroy = false
  }
}

removed {
  from = google_project_iam_member.reader_secret_accessor
  lifecycle {
    destroy = false
  }
}

removed {
  from = google_project_iam_member.reporter_secret_viewer
  lifecycle {
    destroy = false
  }
}

removed {
  from = random_id.role_suffix
  lifecycle {
    destroy = false
  }
}
