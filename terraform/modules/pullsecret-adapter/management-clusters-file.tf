# The management clusters as the job reads them: a JSON file (MANAGEMENT_CLUSTERS' schema) in a
# Cloud Storage object, mounted read-only into the job (job.tf) at MANAGEMENT_CLUSTERS_FILE. An
# environment variable holds 32 KiB on Cloud Run, about 15-20 GKE clusters with their CAs; the file
# is sized for 1,000 (about 2.2 KB an entry: docs/management-clusters.md, "Sizing").
#
# Not a Secret Manager volume: a secret version's payload is capped at 64 KiB
# (https://cloud.google.com/secret-manager/quotas), about 30 entries with CAs. Nothing in the list is
# secret either (endpoints and public CA certificates): Cloud Storage's access control is enough.
#
# With the deprecated management_cluster the job keeps its single-cluster variables and none of
# this exists.
locals {
  clusters_file = module.management_clusters.clusters_file
  # for_each over a value known at plan: the file exists exactly when management_clusters is used.
  clusters_files = var.management_cluster == null ? { list = true } : {}
}

# Only the job reads the bucket. Uniform bucket-level access: IAM alone decides, no object ACLs
# (https://cloud.google.com/storage/docs/uniform-bucket-level-access); public access prevention
# enforced: no allUsers/allAuthenticatedUsers grant can ever be added
# (https://cloud.google.com/storage/docs/public-access-prevention). Versioning keeps each earlier
# list, so a bad change is undone by restoring the previous generation; the lifecycle rule keeps the
# last 10 (https://cloud.google.com/storage/docs/object-versioning,
# https://cloud.google.com/storage/docs/lifecycle). force_destroy: the content is rendered from this
# module's variables, so destroying the module may remove its old versions too.
resource "google_storage_bucket" "management_clusters" {
  for_each                    = local.clusters_files
  project                     = var.project_id
  name                        = "${var.project_id}-${var.name_prefix}-clusters"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = true
  labels                      = var.labels

  versioning {
    enabled = true
  }

  lifecycle_rule {
    action {
      type = "Delete"
    }
    condition {
      num_newer_versions = 10
      with_state         = "ARCHIVED"
    }
  }

  depends_on = [google_project_service.apis]
}

# A change of the list is a new generation of this object: the next execution (a new process, a new
# mount) reads it; the job definition does not change.
resource "google_storage_bucket_object" "management_clusters" {
  for_each     = local.clusters_files
  bucket       = google_storage_bucket.management_clusters["list"].name
  name         = local.clusters_file.object
  content      = local.clusters_file.content
  content_type = "application/json"
}

# The job mounts the bucket with Cloud Storage FUSE, which lists the bucket's objects
# (storage.objects.list) and reads them (storage.objects.get): roles/storage.objectViewer, on this
# bucket only. Cloud Storage FUSE's own guide asks for exactly this role to mount a bucket
# (https://cloud.google.com/storage/docs/gcsfuse-mount, "Get required roles"); the role's contents:
# https://cloud.google.com/storage/docs/access-control/iam-roles. Cloud Run's volume guide asks
# for roles/storage.admin (https://cloud.google.com/run/docs/configuring/jobs/cloud-storage-volume-mounts),
# which the read-only mount does not need: it writes nothing and changes no bucket setting.
resource "google_storage_bucket_iam_member" "job_reads_management_clusters" {
  for_each = local.clusters_files
  bucket   = google_storage_bucket.management_clusters["list"].name
  role     = local.grant["job-reads-management-clusters"].role
  member   = "serviceAccount:${google_service_account.job.email}"
}
