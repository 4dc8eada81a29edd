# The job's Kubernetes RBAC and its admission fence in one management cluster: the same objects as
# the module pullsecret-adapter's management_cluster_rbac output for that cluster
# (this module's templates/management-cluster-rbac.yaml.tftpl and management-cluster-fence.yaml.tftpl), applied
# by Terraform instead of kubectl. The same objects whichever way the cluster is reached (IP or
# DNS-based endpoint, or Connect Gateway): only GKE memberships are accepted behind the gateway, and
# for those it passes the caller's Google identity on to GKE, so there is no Connect Agent to let
# impersonate the job (earlier versions' gateway_impersonate objects are destroyed on upgrade).
locals {
  name   = "hyperfleet-pullsecret-writer"
  labels = { "managed-by" = "hyperfleet" }

  # The fence template's variables: the job's identity and the layout's namespace rule.
  fence_variables = {
    job_identity    = var.job_service_account
    namespace_rule  = module.namespace_layout.fence_namespace_rule
    namespace_words = module.namespace_layout.fence_namespace_words
  }

  # The fence is this module's own template, its one source (the pullsecret-adapter module renders
  # the same file for its kubectl output, and the local stack installs it): a
  # ValidatingAdmissionPolicy and its binding, two YAML documents.
  fence_documents = [
    for document in split("\n---\n", templatefile("${path.module}/templates/management-cluster-fence.yaml.tftpl", local.fence_variables)) : yamldecode(document)
  ]
  fence_policy  = one([for document in local.fence_documents : document if document.kind == "ValidatingAdmissionPolicy"])
  fence_binding = one([for document in local.fence_documents : document if document.kind == "ValidatingAdmissionPolicyBinding"])
}

resource "kubernetes_cluster_role_v1" "writer" {
  metadata {
    name   = local.name
    labels = local.labels
  }
  rule {
    api_groups = [""]
    resources  = ["secrets"]
    # No get, list or watch: the job reads back only its own Secret, through a dry-run JSON patch of
    # test operations on its labels; patch, not update: it patches only the fields it owns
    # (see kubernetes-cluster-secrets.ts and templates/management-cluster-rbac.yaml.tftpl).
    verbs = ["create", "patch", "delete"]
  }
}

# No typed resource for admission policies in the provider (2.38): kubernetes_manifest, which
# needs the cluster's API reachable at plan time as well as at apply.
resource "kubernetes_manifest" "fence_policy" {
  count    = var.fence ? 1 : 0
  manifest = local.fence_policy
}

resource "kubernetes_manifest" "fence_binding" {
  count      = var.fence ? 1 : 0
  manifest   = local.fence_binding
  depends_on = [kubernetes_manifest.fence_policy]
}

resource "kubernetes_role_binding_v1" "writer" {
  for_each = toset(var.namespaces)
  metadata {
    name      = local.name
    namespace = each.key
    labels    = local.labels
  }
  role_ref {
    api_group = "rbac.authorization.k8s.io"
    kind      = "ClusterRole"
    name      = kubernetes_cluster_role_v1.writer.metadata[0].name
  }
  subject {
    kind      = "User"
    name      = var.job_service_account
    api_group = "rbac.authorization.k8s.io"
  }
  depends_on = [kubernetes_manifest.fence_binding]
}

# Cluster-wide Secret rights exist only behind the fence: created after it, refused without it.
resource "kubernetes_cluster_role_binding_v1" "writer" {
  count = var.cluster_wide ? 1 : 0
  metadata {
    name   = local.name
    labels = local.labels
  }
  role_ref {
    api_group = "rbac.authorization.k8s.io"
    kind      = "ClusterRole"
    name      = kubernetes_cluster_role_v1.writer.metadata[0].name
  }
  subject {
    kind      = "User"
    name      = var.job_service_account
    api_group = "rbac.authorization.k8s.io"
  }
  depends_on = [kubernetes_manifest.fence_binding]
  lifecycle {
    precondition {
      condition     = var.fence
      error_message = "cluster_wide = true needs fence = true: cluster-wide Secret rights are only granted behind the admission fence (or bind per namespace with cluster_wide = false)."
    }
  }
}

# The operator's namespace layout, the same value as the pullsecret-adapter module's
# management_namespace: the fence admits the job's Secrets only there.
module "namespace_layout" {
  source = "../pullsecret-namespace-layout"

  template  = var.namespace_layout.template
  migration = var.namespace_layout.migration
}
