locals {
  # A RE2 expression matching exactly the names NOT in allowed_names (Cloud Logging has no "some
  # element outside a set" comparison, but a restriction on a repeated field holds when any element
  # satisfies it). Built on the names' trie: every prefix of an allowed name is a node, and a name
  # is unexpected when it stops at a prefix that is no allowed name, or goes on from a prefix with a
  # character no allowed name continues it with (any character, after a whole name that no other
  # name extends).
  prefixes = distinct(flatten([for name in var.allowed_names : [for i in range(length(name) + 1) : substr(name, 0, i)]]))
  next = {
    for prefix in local.prefixes : prefix => join("", sort(distinct([
      for name in var.allowed_names : substr(name, length(prefix), 1)
      if length(name) > length(prefix) && startswith(name, prefix)
    ])))
  }
  unexpected_name_regex = "^(?:${join("|", [
    for prefix in local.prefixes : (
      prefix == "" || contains(var.allowed_names, prefix)
      ? (local.next[prefix] == "" ? "${prefix}.+" : "${prefix}[^${local.next[prefix]}].*")
      : "${prefix}(?:[^${local.next[prefix]}].*)?"
    )
  ])})$"

  # RunJob on this job (API v2 or v1) with anything the adapter never sends: a name outside the
  # list, a secret reference as a value (v2 valueSource, v1 valueFrom), or args. Regular expressions
  # are case sensitive in Cloud Logging, as environment variable names are; `=` is not.
  overrides = "protoPayload.request.overrides.containerOverrides"
  audit_filter = join(" AND ", [
    "protoPayload.serviceName=\"run.googleapis.com\"",
    "protoPayload.methodName=(\"google.cloud.run.v2.Jobs.RunJob\" OR \"google.cloud.run.v1.Jobs.RunJob\")",
    "protoPayload.resourceName=~\"/jobs/${var.job_name}(?:$|[:/])\"",
    "(${join(" OR ", [
      "${local.overrides}.env.name=~\"${local.unexpected_name_regex}\"",
      "${local.overrides}.env.valueSource:*",
      "${local.overrides}.env.valueFrom:*",
      # args, unless they name one of the operator commands (pull-secret doctor): a restriction on a
      # repeated field holds when any element satisfies it, so the negation holds when no element
      # is exactly such a command. The entrypoint is fixed (no override changes it), so args are
      # only the CLI's arguments, and the CLI refuses any it does not know.
      length(var.operator_commands) == 0 ? "${local.overrides}.args:*" : "(${local.overrides}.args:* AND NOT ${local.overrides}.args=~\"^(?:${join("|", var.operator_commands)})$\")",
      "${local.overrides}.clearArgs=true",
    ])})",
  ])
}
