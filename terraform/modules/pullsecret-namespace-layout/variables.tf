variable "template" {
  description = "The namespace layout on the management clusters: one namespace per cluster, `clusters-{id}` (the default; seed 000), or any lowercase text with `{id}` (the cluster id) once; or one shared namespace without `{id}`, e.g. `clusters` (seed 004: every HostedCluster in `clusters`). The Secret is `{id}-pull-secret` either way. The cluster name is not a placeholder: the customer chooses it."
  type        = string
  default     = "clusters-{id}"
  nullable    = false
  validation {
    # The same rule as the adapter's and the job's (shared/pull-secret/namespace-layout.ts): room for
    # a 36-character cluster id (a UUID) within a 63-character DNS label.
    condition = (
      can(regex("^[a-z0-9-]*(\\{id\\})?[a-z0-9-]*$", var.template))
      && can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", replace(var.template, "{id}", "x")))
      && length(replace(var.template, "{id}", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")) <= 63
      && var.template != "{id}"
      && !can(regex("^(default|kube-.*|openshift-.*)$", var.template))
    )
    error_message = "template must be a DNS label with {id} at most once and some text beside it (e.g. clusters-{id}, or one shared namespace such as clusters, not default, kube-* or openshift-*), leaving room for a 36-character cluster id; no other placeholder."
  }
}

variable "migration" {
  description = "A move from another layout, in two applies (docs/operations.md, \"Changing the namespace layout\"): `{ previous = \"clusters-{id}\", phase = \"keep-previous\" }` writes the new place and keeps the copy in the previous layout while HyperShift's HostedClusters follow; then `phase = \"remove-previous\"` removes the copies; then null. null: no migration."
  type = object({
    previous = string
    phase    = string
  })
  default = null
  validation {
    condition     = var.migration == null ? true : contains(["keep-previous", "remove-previous"], var.migration.phase)
    error_message = "migration.phase must be keep-previous or remove-previous."
  }
  validation {
    condition = var.migration == null ? true : (
      can(regex("^[a-z0-9-]*(\\{id\\})?[a-z0-9-]*$", var.migration.previous))
      && can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", replace(var.migration.previous, "{id}", "x")))
      && length(replace(var.migration.previous, "{id}", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")) <= 63
      && var.migration.previous != var.template
    )
    error_message = "migration.previous must be the layout being left: a template like template's rules, different from template."
  }
}
