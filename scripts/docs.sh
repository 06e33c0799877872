#!/usr/bin/env bash
# Builds the DocC documentation of every library product with --warnings-as-errors and
# fails if one of our public symbols has no summary (abstract).
#
# Inherited members (Collection's default implementations and the like) take the docs of
# the protocol they come from (--enable-inherited-docs); compiler-synthesized ones are left
# out. Articles and the "…-Implementations" groups DocC makes have no abstract of their own.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for target in Swidux SwiduxSQLite SwiduxTesting SwiduxSyncWire SwiduxSync; do
  # Every article is reachable from the module's landing page (the page titled ``Target``).
  catalog="Sources/$target/$target.docc"
  landing="$(grep -l "^# \`\`$target\`\`" "$catalog"/*.md)"
  for article in "$catalog"/*.md; do
    name="$(basename "$article" .md)"
    if [ "$article" != "$landing" ] && ! grep -q "<doc:$name>" "$landing"; then
      echo "error: $target: article $name is not linked from $(basename "$landing") (add - <doc:$name> to its Topics)"
      status=1
    fi
  done
  report="$(mktemp)"
  if ! swift package generate-documentation --target "$target" --warnings-as-errors \
      --enable-inherited-docs --experimental-skip-synthesized-symbols \
      --experimental-documentation-coverage --coverage-summary-level detailed >"$report" 2>&1; then
    cat "$report"; rm -f "$report"; exit 1
  fi
  missing="$(awk -F'|' 'NF > 5 && $3 ~ /false/ && $2 !~ /CollectionGroup|Article|Extended/ { gsub(/^ +| +$/, "", $8); print "  " $8 }' "$report")"
  grep -E '^(Types|Members|Globals) ' "$report" | sed "s/^/$target: /"
  if [ -n "$missing" ]; then
    echo "error: $target: public symbols without a summary (add a /// line):"
    echo "$missing"
    status=1
  fi
  rm -f "$report"
done
exit $status
