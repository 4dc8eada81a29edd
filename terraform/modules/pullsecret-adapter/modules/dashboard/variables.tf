variable "display_name" {
  description = "The dashboard's name in Cloud Monitoring."
  type        = string
  nullable    = false
}

variable "tiles" {
  description = "One line chart per log-based metric, two per row in order: title, metric (the log-based metric's name), aligner (ALIGN_RATE, ALIGN_PERCENTILE_99, ...), reducer across series (REDUCE_SUM, REDUCE_MAX, ...) and group_by (label fields, e.g. metric.label.outcome; empty for one line)."
  type = list(object({
    title    = string
    metric   = string
    aligner  = string
    reducer  = string
    group_by = optional(list(string), [])
  }))
  nullable = false
  validation {
    condition     = alltrue([for tile in var.tiles : can(regex("^ALIGN_[A-Z0-9_]+$", tile.aligner)) && can(regex("^REDUCE_[A-Z0-9_]+$", tile.reducer)) && !endswith(tile.aligner, "_UNSPECIFIED") && !endswith(tile.reducer, "_UNSPECIFIED")])
    error_message = "tiles[*].aligner must be an ALIGN_* and reducer a REDUCE_* value, not *_UNSPECIFIED (the API does not return an unspecified value, so it would show as a change on every plan)."
  }
}
