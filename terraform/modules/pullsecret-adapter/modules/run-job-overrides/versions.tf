# Pure (no provider): the audit-log filter for RunJob calls whose overrides go beyond what the
# adapter sends, so `terraform apply` evaluates it without cloud credentials
# (test/unit/terraform/run-job-overrides.test.ts runs it on sample audit entries).
terraform {
  required_version = ">= 1.5.0"
}
