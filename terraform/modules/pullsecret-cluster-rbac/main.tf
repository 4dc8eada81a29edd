# The job's Kubernetes RBAC in one management cluster: the same objects as the module
# pullsecret-adapter's management_cluster_rbac output (templates/management-cluster-rbac.yaml.tftpl),
# applied by Terraform instead of kubectl.
locals {
  name   = "hyperfleet-pullsecret-writer"
  labels = { "managed-by" = "hyperfleet" }
}

resource "kubernetes_cluster_role_v1" "writer" {
  metadata {
    name   = local.name
    labels = local.labels
  }
  rule {
    api_groups = [""]
    resources  = ["secrets"]
    # patch, not update: the job merge-patches only the fields it owns (see kubernetes-cluster-secrets.ts).
    verbs = ["get", "create", "patch", "delete"]
  }
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
}

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
}
