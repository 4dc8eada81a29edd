output "dashboard_json" {
  description = "dashboard_json for google_monitoring_dashboard: only keys the Monitoring API returns as sent."
  value       = local.dashboard_json
}
