#!/usr/bin/env bash
# Changes one value through a running studio started with --allow-edits, as its row page's form
# does: the row of ENTITY whose MATCH_PROPERTY equals MATCH_VALUE gets PROPERTY = NEW_VALUE.
# The studio's browser check uses it as "another process saving" (the studio saves with history
# author "studio"); it fails unless the studio answers with the redirect of a saved edit.
#
#   Tools/Studio/Scripts/studio-edit.sh 'http://127.0.0.1:4041/?token=…' Item name Rope name 'Hemp rope'
set -euo pipefail
url=$1 entity=$2 match_property=$3 match_value=$4 property=$5 value=$6
origin=${url%%/\?*}
jar=$(mktemp)
trap 'rm -f "$jar"' EXIT
curl -fs -c "$jar" -o /dev/null "$url"
key=$(curl -fs -b "$jar" -G "$origin/entity/$entity" --data-urlencode "fp=$match_property" --data-urlencode "fo=equals" --data-urlencode "fv=$match_value" \
    | grep -o '<tr data-key="[0-9]*"' | head -1 | grep -o '[0-9]*')
[ -n "$key" ] || { echo "no $entity whose $match_property is $match_value" >&2; exit 1; }
# As the studio's own page posts it: a change naming another origin, or none, is refused.
status=$(curl -s -b "$jar" -o /dev/null -w '%{http_code}' -H "Origin: $origin" "$origin/entity/$entity/$key/edit" \
    --data-urlencode "property=$property" --data-urlencode "value=$value")
[ "$status" = 303 ] || { echo "the edit of $entity $key answered $status" >&2; exit 1; }
