terraform {
  required_version = ">= 1.5.0"
  required_providers {
    # Configured by the caller, one provider per management cluster (a module cannot create
    # providers per map entry): see terraform/examples/basic/cluster-rbac.tf.
    kubernetes = {
      source  = "hashicorp/kubernetes"
      version = "~> 2.38"
    }
  }
}
