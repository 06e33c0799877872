#!/usr/bin/env bash
# Checks that what must not compile does not (scripts/test.sh runs it after its build): each
# file of Checks/MustNotCompile is type-checked against the debug build's Swidux module. Its
# first line says what must happen: `// expected-error: TEXT` (the compiler fails with an
# error containing TEXT) or `// expected: compiles` (a control: the same set-up compiles).
set -euo pipefail
cd "$(dirname "$0")/.."
modules=.build/debug/Modules
[ -d "$modules" ] || modules=$(swift build --show-bin-path)/Modules
shims=.build/checkouts/swift-atomics/Sources/_AtomicsShims/include
failed=0
for file in Checks/MustNotCompile/*.swift; do
  first=$(head -1 "$file")
  status=0
  output=$(swiftc -typecheck -swift-version 6 -I "$modules" -I "$shims" "$file" 2>&1) || status=$?
  case "$first" in
    "// expected-error: "*)
      expected=${first#// expected-error: }
      if [ "$status" -eq 0 ]; then
        echo "check-compile-errors: $file compiled; expected an error containing \"$expected\"" >&2; failed=1
      elif ! grep -qF -- "$expected" <<< "$output"; then
        echo "check-compile-errors: $file failed without an error containing \"$expected\":" >&2
        echo "$output" >&2; failed=1
      fi ;;
    "// expected: compiles")
      if [ "$status" -ne 0 ]; then
        echo "check-compile-errors: $file (a control) does not compile:" >&2; echo "$output" >&2; failed=1
      fi ;;
    *) echo "check-compile-errors: $file has no expectation on its first line" >&2; failed=1 ;;
  esac
done
[ "$failed" -eq 0 ] && echo "check-compile-errors: every expectation of Checks/MustNotCompile holds"
exit "$failed"
