# The dashboard JSON is written so that the plan never shows a change the API made. The provider's
# DiffSuppressFunc for dashboard_json (v7.45.0 google/services/monitoring/resource_monitoring_dashboard.go,
# monitoringDashboardDiffSuppress and removeComputedKeys) drops from the JSON the API returned every
# key the configuration does not have, then compares the rest with the configuration exactly. So a
# key the API adds is harmless, and every key written here must come back exactly as sent:
# - no default value: the API answers in proto3 JSON, which leaves out fields holding their default
#   (0, "", false, empty lists, *_UNSPECIFIED; https://protobuf.dev/programming-guides/json/), so
#   xPos = 0, yPos = 0 and an empty groupByFields are left out here too (the API drops them: provider
#   issues #7242, #16173);
# - no key that only restates what the view or the API does anyway: chartOptions.mode = COLOR,
#   yAxis.scale = LINEAR and plotType = LINE are what an unspecified value defaults to ("The view
#   will default to COLOR" / "LINEAR" / "LINE", https://cloud.google.com/monitoring/api/ref_v3/rest/v1/projects.dashboards#XyChart),
#   and targetAxis (Y1) and minAlignmentPeriod are filled in by the API (#9976: "targetAxis = "Y1"
#   -> null"). Left out, whatever the API returns for them is ignored; written, each would be a bet
#   that the API echoes it verbatim forever.
# What remains is what a chart needs: its place and size, its title, and its query (one data set,
# or one per series, each with its legend template unless that is empty).
locals {
  tiles = [for index, tile in var.tiles : merge(
    { for key, value in { xPos = (index % 2) * 6, yPos = floor(index / 2) * 4 } : key => value if value != 0 },
    {
      width  = 6
      height = 4
      widget = {
        title = tile.title
        xyChart = {
          dataSets = [for set in(length(tile.series) > 0 ? tile.series : [{ aligner = tile.aligner, reducer = tile.reducer, legend = "" }]) : merge(
            {
              timeSeriesQuery = {
                timeSeriesFilter = {
                  filter = "metric.type=\"logging.googleapis.com/user/${tile.metric}\""
                  aggregation = merge(
                    {
                      alignmentPeriod    = "60s"
                      perSeriesAligner   = set.aligner
                      crossSeriesReducer = set.reducer
                    },
                    { for key, value in { groupByFields = tile.group_by } : key => value if length(value) > 0 },
                  )
                }
              }
            },
            { for key, value in { legendTemplate = set.legend } : key => value if value != "" },
          )]
        }
      }
    },
  )]

  dashboard_json = jsonencode({
    displayName = var.display_name
    mosaicLayout = {
      columns = 12
      tiles   = local.tiles
    }
  })
}
