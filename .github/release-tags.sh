#!/usr/bin/env bash
# The release's git steps (docs/actions.md, "Versions and releasing"), kept out of release.yml so the
# tests run them against a local git server:
#
#   release-tags.sh clone URL DIR            clone URL into DIR
#   release-tags.sh URL VERSION [BRANCH]     in the current repository: with BRANCH, push HEAD to it
#                                            (a fast-forward, never forced); then tag HEAD vVERSION
#                                            and move vMAJOR.MINOR to it
#
# The exact tag is created once: when URL (or this clone) already has it, the script fails, so no
# rerun can move a released tag under a team that pinned it. The moving tag moves by design, and is
# pushed with a lease on the commit it named when this run read it, so two racing releases cannot
# silently undo each other. The token comes from GH_TOKEN, as an HTTP header for URL's server alone,
# through git's environment configuration: never on a command line, in a remote URL or on disk.
set -euo pipefail

auth() {
  local server
  server="$(printf '%s' "$1" | sed -E 's#^(https?://[^/]+)/.*#\1/#')"
  if [[ -n "${GH_TOKEN:-}" ]]; then
    export GIT_CONFIG_COUNT=1
    export GIT_CONFIG_KEY_0="http.${server}.extraheader"
    GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $(printf 'x-access-token:%s' "$GH_TOKEN" | base64 | tr -d '\n')"
    export GIT_CONFIG_VALUE_0
  fi
}

if [[ "${1:-}" == clone ]]; then
  [[ $# -eq 3 ]] || { echo "usage: release-tags.sh clone URL DIR" >&2; exit 2; }
  auth "$2"
  git clone --quiet "$2" "$3"
  exit 0
fi

[[ $# -ge 2 && $# -le 3 ]] || { echo "usage: release-tags.sh URL VERSION [BRANCH]" >&2; exit 2; }
url="$1" version="$2" branch="${3:-}"
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "release-tags: $version is not an exact version X.Y.Z" >&2
  exit 2
fi
auth "$url"
exact="v$version"
moving="v${version%.*}"

if git rev-parse --quiet --verify "refs/tags/$exact" >/dev/null ||
  [[ -n "$(git ls-remote "$url" "refs/tags/$exact")" ]]; then
  echo "release-tags: $exact already exists; a released tag is never moved (release the next version)" >&2
  exit 1
fi
if [[ -n "$branch" ]]; then
  git push --quiet "$url" "HEAD:refs/heads/$branch"
fi
named="$(git ls-remote "$url" "refs/tags/$moving" | cut -f1)"
git -c user.name="github-actions[bot]" -c user.email="41898282+github-actions[bot]@users.noreply.github.com" \
  tag --annotate "$exact" --message "Homeostat $version"
# Without --force the server refuses a tag it already has, so a run racing this one cannot move it.
git push --quiet "$url" "refs/tags/$exact"
git push --quiet --force-with-lease="refs/tags/$moving:$named" "$url" "HEAD:refs/tags/$moving"
echo "release-tags: $url: $exact and $moving name $(git rev-parse --short HEAD)"
