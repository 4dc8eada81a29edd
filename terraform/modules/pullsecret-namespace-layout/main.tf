# The operator's namespace layout, computed once for every place that needs it: the environment the
# adapter and the job read (shared/pull-secret/namespace-layout.ts parses it) and the admission
# fence's namespace rule (templates/management-cluster-fence.yaml.tftpl in pullsecret-cluster-rbac).
# The local stack computes the same text in TypeScript (fenceNamespaceRule); a test compares them.
locals {
  # The cluster a fenced request is about: the old object's label for a DELETE, else the new one's.
  owner = "(request.operation == 'DELETE' ? oldObject.metadata.labels['cluster-id'] : object.metadata.labels['cluster-id'])"

  templates = merge(
    { current = var.template },
    var.migration == null ? {} : { previous = var.migration.previous },
  )
  # `clusters-{id}` -> 'clusters-' + OWNER; `clusters` -> 'clusters'. Templates hold only
  # [a-z0-9-] and {id} (validated), so nothing needs quoting inside the CEL string literals.
  cel_namespace = {
    for which, template in local.templates : which => (
      length(split("{id}", template)) == 1 ? "'${template}'" : join(" + ", compact([
        split("{id}", template)[0] == "" ? "" : "'${split("{id}", template)[0]}'",
        local.owner,
        split("{id}", template)[1] == "" ? "" : "'${split("{id}", template)[1]}'",
      ]))
    )
  }
  words = { for which, template in local.templates : which => replace(template, "{id}", "CLUSTER") }
}
