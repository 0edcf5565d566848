#!/usr/bin/env bash
# Runs `homeostat "$@"` for a composite action: in the pinned image through `docker run`, or, when
# $HOMEOSTAT_BIN names an installed homeostat, that program directly (a job container that already
# has it, a self-hosted runner without Docker, this repository's tests).
#
# Paths are the same inside the container as on the runner: the workspace and the folders of
# $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT are mounted at their own paths, so a relative KB path,
# an annotation's file and the summary all mean the same thing on both sides.
set -euo pipefail

if [[ -n "${HOMEOSTAT_BIN:-}" ]]; then
  exec "$HOMEOSTAT_BIN" "$@"
fi

image="${INPUT_IMAGE:?set the action input image}:${INPUT_VERSION:?set the action input version}"
if ! command -v docker >/dev/null 2>&1; then
  echo "homeostat: docker is not available on this runner (${RUNNER_OS:-unknown OS}); run the job on" \
    "ubuntu-latest, or install homeostat and set HOMEOSTAT_BIN to its path" >&2
  exit 2
fi

workspace="${GITHUB_WORKSPACE:-$PWD}"
declare -A mounts=(["$workspace"]=1)
for file in "${GITHUB_STEP_SUMMARY:-}" "${GITHUB_OUTPUT:-}"; do
  if [[ -n "$file" ]]; then mounts["$(dirname "$file")"]=1; fi
done

# --user: files the entrypoint writes (--fix, the summary) belong to the runner's user, as if run there.
args=(run --rm --user "$(id -u):$(id -g)" --env HOME=/tmp --workdir "$PWD")
for dir in "${!mounts[@]}"; do args+=(--volume "$dir:$dir"); done
# Settings, CI context and model-provider credentials, by name only: values never reach the log.
while IFS= read -r name; do
  args+=(--env "$name")
done < <(compgen -e | grep -E '^(HOMEOSTAT_|GITHUB_|RUNNER_|ANTHROPIC_|AWS_|GOOGLE_|CLOUD_ML_|CI$)' || true)

# The Slack webhook lives in whatever variable notifications.slackWebhookEnv names, which need not
# start with HOMEOSTAT_: read that one key from the KB's homeostat.yaml (block style, as init writes
# it) and forward that variable too, by name.
slack_webhook_env() {
  local config="${INPUT_KB_PATH:-.}/homeostat.yaml"
  [[ -f "$config" ]] || return 0
  awk '
    /^[^[:space:]#]/ { section = $1 }
    section == "notifications:" && $1 == "slackWebhookEnv:" {
      value = $2; gsub(/["\047]/, "", value); print value; exit
    }
  ' "$config"
}
slack_env="$(slack_webhook_env)"
if [[ "$slack_env" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
  args+=(--env "$slack_env")
fi

exec docker "${args[@]}" "$image" "$@"
