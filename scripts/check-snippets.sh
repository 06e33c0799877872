#!/usr/bin/env bash
# Compiles, on Linux, the code that only an Apple build would otherwise compile:
# - Swidux's SwiftUI helpers (Sources/Swidux/Store/Store+SwiftUI.swift, `#if canImport(SwiftUI)`),
# - every Swift code block of README.md and of the DocC catalogs (Sources/*/*.docc),
# - the SwiftUI app and views of a project `swidux new` generates (with one feature added),
# against Checks/SwiftUIShim: a module named SwiftUI that declares the SwiftUI API this code
# uses, with the isolation of Apple's iOS 18 SDK. With it on the import path,
# `canImport(SwiftUI)` is true and `import SwiftUI` finds it. Type-checking only: nothing is
# linked or run, and it does not replace an Apple build. Any error, or any warning in our own
# code or in a snippet, fails the run. .ci/run calls it; about 2-4 minutes from a clean clone.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scratch="$root/.build-snippets"
mkdir -p "$scratch/shim"

# 1. The SwiftUI stand-in, as a module file only.
swiftc -emit-module -parse-as-library -swift-version 6 -module-name SwiftUI \
  -emit-module-path "$scratch/shim/SwiftUI.swiftmodule" Checks/SwiftUIShim/*.swift

# 2. Swidux's libraries (copies: a package's targets live inside it), and the documents'
# code blocks, one module per document.
rm -rf Checks/Snippets/Library
mkdir -p Checks/Snippets/Library
for module in Swidux SwiduxSQLite SwiduxSync SwiduxSyncWire SwiduxTesting; do
  cp -R Sources/$module Checks/Snippets/Library/$module
  rm -rf Checks/Snippets/Library/$module/*.docc
done
# SwiduxSync's Linux HTTP client would bring SwiftNIO and BoringSSL into this build too:
# a stand-in with its members takes its place (the documents use SwiduxSync's API only).
cp Checks/Snippets/HTTPExchangeStandIn.swift Checks/Snippets/Library/SwiduxSync/HTTPExchange+AsyncHTTPClient.swift
python3 Checks/extract_snippets.py

# 3. A generated project's sources (the scaffolder's templates), as one more module.
swift build --product swidux
project=$(mktemp -d)
trap 'rm -rf "$project"' EXIT
.build/debug/swidux new Notes --path "$project" --swidux-path "$root" > /dev/null
.build/debug/swidux add feature Todo --path "$project/Notes" > /dev/null
.build/debug/swidux add feature Tag --path "$project/Notes" > /dev/null
mkdir -p Checks/Snippets/Generated/Scaffolded_Notes
cp -R "$project/Notes/Sources/Notes/." Checks/Snippets/Generated/Scaffolded_Notes/
cp Checks/Snippets/AppleFoundation.swift Checks/Snippets/Generated/Scaffolded_Notes/

# 4. All of it, and Swidux itself, against the shim.
log="$scratch/build.log"
status=0
swift build --package-path Checks/Snippets --scratch-path "$scratch" > "$log" 2>&1 || status=$?
# Our own warnings fail too: those of the libraries and the snippets' (dependencies' are
# not ours). A fragment may leave a value unused (`let store = Store(…)` to show the call).
fragment='(never used|never read|never mutated|is unused|will never be executed)'
if grep -E "^($root/)?Checks/Snippets/(Generated|Library)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" \
    | grep -vE "Checks/Snippets/Generated/.*warning: .*$fragment" | sort -u | grep .; then
  echo "check-snippets: warnings above (see $log)" >&2; exit 1
fi
if [ "$status" -ne 0 ]; then
  grep -E "error:" "$log" >&2 || tail -40 "$log" >&2
  echo "check-snippets: the build against the SwiftUI shim failed (see $log)" >&2; exit 1
fi
echo "check-snippets: Swidux's SwiftUI code, every document's code blocks and a scaffolded project compile"
