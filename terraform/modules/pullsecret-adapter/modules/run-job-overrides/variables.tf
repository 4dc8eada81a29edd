variable "allowed_names" {
  description = "The environment variables the adapter sets on an execution (run-job-overrides.json)."
  type        = list(string)
  nullable    = false
  validation {
    # Letters, digits and _ only: the names go into a regular expression unescaped.
    condition     = length(var.allowed_names) > 0 && alltrue([for name in var.allowed_names : can(regex("^[A-Za-z_][A-Za-z0-9_]*$", name))])
    error_message = "allowed_names must be environment variable names (letters, digits and _, not starting with a digit), at least one."
  }
}

variable "job_name" {
  description = "The Cloud Run job's name (its last path segment)."
  type        = string
  nullable    = false
  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$", var.job_name))
    error_message = "job_name must be a Cloud Run job name: lowercase letters, digits and -, starting with a letter."
  }
}

variable "operator_commands" {
  description = "The job CLI commands an operator may run as an execution with an args override (run-job-overrides.json operatorCommands.names: pull-secret doctor); args naming one of them are not counted as unexpected."
  type        = list(string)
  default     = []
  nullable    = false
  validation {
    # Lowercase letters and - only: the names go into a regular expression unescaped.
    condition     = alltrue([for name in var.operator_commands : can(regex("^[a-z][a-z-]*$", name))])
    error_message = "operator_commands must be CLI command names (lowercase letters and -)."
  }
}
