# Pure (no provider): the dashboard's JSON, so `terraform apply` renders it without cloud
# credentials (test/unit/terraform/dashboard.test.ts checks every key it writes round-trips).
terraform {
  required_version = ">= 1.5.0"
}
