# Pure (no provider): what tracing adds to the deployment (APIs, grants, environment), so the whole
# decision is evaluated by `terraform apply` without cloud credentials
# (test/unit/terraform/tracing.test.ts does exactly that).
terraform {
  required_version = ">= 1.5.0"
}
