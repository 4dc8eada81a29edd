# Issue 18: one trace per reconcile, exported to Cloud Trace. What tracing adds (APIs, roles, OTEL_*
# variables) is decided in the provider-free modules/tracing; here it is applied.
module "tracing" {
  source = "./modules/tracing"

  enabled       = var.tracing_enabled
  sampler_ratio = var.tracing_sampler_ratio
}

locals {
  # The identities that export spans: each component writes its own.
  runtime_identities = {
    adapter  = google_service_account.adapter.email
    reporter = google_service_account.reporter.email
    job      = google_service_account.job.email
  }
}

# Every runtime identity gets each tracing role (modules/tracing/main.tf says why both); none when
# tracing is disabled. On the project: the only level at which both roles can be granted.
resource "google_project_iam_member" "tracing" {
  for_each = {
    for pair in setproduct(keys(local.runtime_identities), module.tracing.roles) : "${pair[0]}/${pair[1]}" => {
      identity = pair[0]
      role     = pair[1]
    }
  }
  project = var.project_id
  role    = each.value.role
  member  = "serviceAccount:${local.runtime_identities[each.value.identity]}"
}
