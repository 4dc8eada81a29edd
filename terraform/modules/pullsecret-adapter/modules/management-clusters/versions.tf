# Pure (no provider): the management clusters' normalisation, validation, IAM plan, job env and
# Kubernetes manifests, so that the whole decision can be evaluated by `terraform plan` without
# cloud credentials (test/unit/terraform/management-clusters.test.ts does exactly that).
terraform {
  required_version = ">= 1.5.0"
}
