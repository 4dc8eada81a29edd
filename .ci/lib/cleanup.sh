# shellcheck shell=bash
# What .ci/run starts, and only that, is stopped when the run ends. Each step that may leave
# processes behind (a test's emulator, the Pub/Sub emulator's JVM, a function) runs in a session
# and process group of its own, recorded when it starts; at exit every recorded group that still
# has live processes gets SIGTERM, a grace period, then SIGKILL. A process keeps its group when its
# parent dies, so orphans are found too. Nothing else is touched: not the run's own shell, not an
# editor or shell whose command line holds the checkout's path. (A program that makes itself a
# new session, as a browser launcher may, leaves the step's group and is not covered.)
# Sourced by .ci/run; test/unit/ci/cleanup.test.ts runs it in a fake run.

# Where the recorded groups are listed (one "group<TAB>step" line each), set by ci_cleanup_init.
CI_GROUPS_FILE=''
# How long a group has between SIGTERM and SIGKILL.
CI_STOP_GRACE_SECONDS=${CI_STOP_GRACE_SECONDS:-5}

# Starts recording; installs the traps that stop the recorded groups however the run ends, with
# the run's own exit status (a signal ends it as a shell reports one: 128 + its number).
ci_cleanup_init() {
  CI_GROUPS_FILE=$(mktemp "${TMPDIR:-/tmp}/ci-process-groups.XXXXXX")
  # Without job control a background command is not a group leader, so setsid (below) makes it
  # the leader of a new session in place, without forking: its pid is the new group's id.
  set +m
  trap ci_on_exit EXIT
  trap 'exit 129' HUP
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# Runs "$@" in a session and process group of its own, recorded as step $1's; returns its status.
ci_in_own_group() {
  local step=$1
  shift
  setsid --wait "$@" &
  local group=$!
  printf '%s\t%s\n' "$group" "$step" >>"$CI_GROUPS_FILE"
  wait "$group"
}

# The live (not yet reaped zombies excluded) processes of the session and group $1, one pid a line.
# Both ids must match: were the number reused after the group had emptied, it would not be ours.
ci_group_members() {
  ps -e -o pid=,pgid=,sid=,stat= |
    awk -v group="$1" '$2 == group && $3 == group && $4 !~ /^Z/ { print $1 }'
}

# Stops every recorded group that still has live processes: SIGTERM, the grace period, SIGKILL.
ci_stop_recorded_groups() {
  [ -n "$CI_GROUPS_FILE" ] && [ -f "$CI_GROUPS_FILE" ] || return 0
  local own_group group step members
  local -a pending=()
  own_group=$(ps -o pgid= -p "$$" | tr -d ' ')
  while IFS=$'\t' read -r group step; do
    [ "$group" = "$own_group" ] && continue
    members=$(ci_group_members "$group")
    [ -n "$members" ] || continue
    echo "ci: stopping what step '$step' left running: $(echo "$members" | tr '\n' ' ')"
    kill -TERM -- "-$group" 2>/dev/null || true
    pending+=("$group")
  done <"$CI_GROUPS_FILE"
  local checks=$((CI_STOP_GRACE_SECONDS * 5)) # one every 0.2 s
  while [ "${#pending[@]}" -gt 0 ] && [ "$checks" -gt 0 ]; do
    checks=$((checks - 1))
    local -a still=()
    for group in "${pending[@]}"; do
      [ -n "$(ci_group_members "$group")" ] && still+=("$group")
    done
    pending=(${still[@]+"${still[@]}"})
    [ "${#pending[@]}" -gt 0 ] && sleep 0.2
  done
  for group in ${pending[@]+"${pending[@]}"}; do
    echo "ci: process group $group outlived SIGTERM by ${CI_STOP_GRACE_SECONDS}s; SIGKILL"
    kill -KILL -- "-$group" 2>/dev/null || true
  done
  rm -f "$CI_GROUPS_FILE"
}

# The EXIT trap: stops what the run started, then exits with the run's own status.
ci_on_exit() {
  local status=$?
  set +e
  ci_stop_recorded_groups
  exit "$status"
}
