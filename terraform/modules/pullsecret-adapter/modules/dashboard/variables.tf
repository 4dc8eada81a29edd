variable "display_name" {
  description = "The dashboard's name in Cloud Monitoring."
  type        = string
  nullable    = false
}

variable "tiles" {
  description = "One line chart per log-based metric, two per row in order: title, metric (the log-based metric's name), aligner (ALIGN_RATE, ALIGN_PERCENTILE_99, ...), reducer across series (REDUCE_SUM, REDUCE_MAX, ...) and group_by (label fields, e.g. metric.label.outcome; empty for one line). series instead of aligner and reducer: several data sets of the metric on one chart (p50, p95 and p99, say), each with its aligner, reducer and legend (its legendTemplate, which may interpolate labels such as metric.labels.operation; empty for the default)."
  type = list(object({
    title    = string
    metric   = string
    aligner  = optional(string)
    reducer  = optional(string)
    group_by = optional(list(string), [])
    series = optional(list(object({
      aligner = string
      reducer = string
      legend  = optional(string, "")
    })), [])
  }))
  nullable = false
  validation {
    condition     = alltrue([for tile in var.tiles : length(tile.series) > 0 ? tile.aligner == null && tile.reducer == null : tile.aligner != null && tile.reducer != null])
    error_message = "Each of tiles[*] has either aligner and reducer (one data set) or series (several), not both."
  }
  validation {
    condition     = alltrue(flatten([for tile in var.tiles : [for set in(length(tile.series) > 0 ? tile.series : [{ aligner = coalesce(tile.aligner, "-"), reducer = coalesce(tile.reducer, "-"), legend = "" }]) : can(regex("^ALIGN_[A-Z0-9_]+$", set.aligner)) && can(regex("^REDUCE_[A-Z0-9_]+$", set.reducer)) && !endswith(set.aligner, "_UNSPECIFIED") && !endswith(set.reducer, "_UNSPECIFIED")]]))
    error_message = "tiles[*].aligner (and series[*].aligner) must be an ALIGN_* and reducer a REDUCE_* value, not *_UNSPECIFIED (the API does not return an unspecified value, so it would show as a change on every plan)."
  }
}
