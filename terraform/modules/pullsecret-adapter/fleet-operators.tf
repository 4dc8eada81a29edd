# The fleet operators (`npm run -s fleet -- pause|resume|report|resync`, docs/operations.md "Operating the
# fleet: pause, resume, report"): people or automation, not a runtime identity, so their grant is
# not in runtime-grants.json.
# Pausing and resuming launches needs only cloudtasks.queues.pause and cloudtasks.queues.resume on
# the launch queue, and the report's queue state cloudtasks.queues.get
# (https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues/pause: "Tasks can
# still be added when the queue is paused"; the permission per method:
# https://cloud.google.com/tasks/docs/reference-access-control). No predefined role is that narrow:
# Cloud Tasks Queue Admin adds create, delete, purge, update and the queue's IAM policy, and Cloud
# Tasks Admin every task besides (https://cloud.google.com/iam/docs/roles-permissions/cloudtasks).
# So one custom role with the three (fleet-operator-role.json), granted on this queue only. Its id
# carries a random suffix like the other custom roles (doctor.tf): a deleted role's id is not
# reusable at once. The report also reads the HyperFleet API with the API's own token (no Google
# right).
locals {
  fleet_operator_permissions = jsondecode(file("${path.module}/fleet-operator-role.json")).permissions
}

resource "google_project_iam_custom_role" "fleet_operator" {
  count       = length(var.fleet_operators) > 0 ? 1 : 0
  project     = var.project_id
  role_id     = "${replace(var.name_prefix, "-", "_")}_pullSecretFleetOperator_${random_id.adapter_roles.hex}"
  title       = "HyperFleet pull secret fleet operator (${var.name_prefix})"
  description = "Lets an operator pause, resume and read the state of the pull secret launch queue (npm run fleet)."
  permissions = local.fleet_operator_permissions
  depends_on  = [google_project_service.apis]
}

resource "google_cloud_tasks_queue_iam_member" "fleet_operators" {
  for_each = toset(var.fleet_operators)
  project  = var.project_id
  location = google_cloud_tasks_queue.launches.location
  name     = google_cloud_tasks_queue.launches.name
  role     = google_project_iam_custom_role.fleet_operator[0].id
  member   = each.value
}

# The same role on each management cluster's queue: `fleet pause --management-cluster NAME`.
resource "google_cloud_tasks_queue_iam_member" "fleet_operators_per_management_cluster" {
  for_each = {
    for pair in setproduct(var.fleet_operators, keys(google_cloud_tasks_queue.per_management_cluster)) :
    "${pair[0]} ${pair[1]}" => { member = pair[0], cluster = pair[1] }
  }
  project  = var.project_id
  location = google_cloud_tasks_queue.per_management_cluster[each.value.cluster].location
  name     = google_cloud_tasks_queue.per_management_cluster[each.value.cluster].name
  role     = google_project_iam_custom_role.fleet_operator[0].id
  member   = each.value.member
}

# A fleet-wide pause finds the queues with ListQueues: cloudtasks.queues.list on the location,
# which only a project-level binding gives (a queue's policy cannot). One more custom role with
# that one permission (Cloud Tasks Viewer would add reading every task).
resource "google_project_iam_custom_role" "fleet_operator_list" {
  count       = length(var.fleet_operators) > 0 && length(local.management_cluster_queues) > 0 ? 1 : 0
  project     = var.project_id
  role_id     = "${replace(var.name_prefix, "-", "_")}_pullSecretFleetQueues_${random_id.adapter_roles.hex}"
  title       = "HyperFleet pull secret fleet queues (${var.name_prefix})"
  description = "Lets an operator list the launch queues to pause or resume them all (npm run fleet)."
  permissions = jsondecode(file("${path.module}/fleet-operator-role.json")).listPermissions
  depends_on  = [google_project_service.apis]
}

resource "google_project_iam_member" "fleet_operators_list_queues" {
  for_each = length(local.management_cluster_queues) > 0 ? toset(var.fleet_operators) : toset([])
  project  = var.project_id
  role     = google_project_iam_custom_role.fleet_operator_list[0].id
  member   = each.value
}

# `npm run -s fleet -- resync ...` publishes one request to the fleet-requests topic
# (functions/fleet/requests/fleet-requests.ts), which checks pubsub.topics.publish only
# (https://cloud.google.com/pubsub/docs/access-control#permissions: topics.publish). Pub/Sub
# Publisher (roles/pubsub.publisher) is exactly that permission
# (https://cloud.google.com/iam/docs/roles-permissions/pubsub), granted on this topic only: an
# operator can ask for a resync and nothing else through it (the adapter decides what to launch).
resource "google_pubsub_topic_iam_member" "fleet_operators_request_resync" {
  for_each = toset(var.fleet_operators)
  project  = var.project_id
  topic    = google_pubsub_topic.fleet_requests.name
  role     = "roles/pubsub.publisher"
  member   = each.value
}
