#!/usr/bin/env bash
# The test command (README, "run the tests"; .ci/run runs it): every test of the package and of
# Server/. Several `swift test` runs of the main package, so that the tests that start many
# processes — the app's process tests (TodosAppTests), the scaffolder's generated-project
# builds (SwiduxCLITests) and the many-writers tests (real `todos` UIs, a shell loop,
# plain-SQL processes) — do not starve the library tests' time limits on a 2-core machine. Set-up first: `bash scripts/setup.sh server`.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step says when it starts, so a slow run shows where its time went.
stage() { printf '\n== scripts/test.sh: %s (at %dm%02ds)\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }
stage 'swift build --build-tests'
swift build --build-tests
stage 'bash scripts/check-compile-errors.sh'
bash scripts/check-compile-errors.sh
# The library tests, one target per run: together, the core's main-actor tests queued
# behind the SQLite and sync tests' database work past their 60 s limits on two cores.
stage 'swift test --skip-build --filter ^SwiduxTests\.'
swift test --skip-build --filter '^SwiduxTests\.'
stage 'swift test --skip-build --filter ^SwiduxSQLiteTests\. --skip ManyWriters'
swift test --skip-build --filter '^SwiduxSQLiteTests\.' --skip 'ManyWriters'
stage 'swift test --skip-build --skip ^(SwiduxTests|SwiduxSQLiteTests)\.|ManyWriters|SwiduxCLITests|TodosAppTests'
swift test --skip-build --skip '^(SwiduxTests|SwiduxSQLiteTests)\.|ManyWriters|SwiduxCLITests|TodosAppTests'
stage 'swift test --skip-build --filter TodosAppTests --skip ManyWriters'
swift test --skip-build --filter 'TodosAppTests' --skip 'ManyWriters'
stage 'swift test --skip-build --filter SwiduxCLITests'
swift test --skip-build --filter 'SwiduxCLITests'
stage 'swift test --skip-build --filter ManyWriters'
swift test --skip-build --filter 'ManyWriters'
# The server package is built in this package's build folder: the libraries, SwiftNIO,
# BoringSSL and GRDB it shares with this package are then compiled once, not twice (less than
# half of the server's compile steps remain). SwiftPM keeps one build plan per folder and does
# not notice that another package's plan was left there, so the plan is forgotten before and
# after (`forget_plan`); the compiled modules stay.
forget_plan() { rm -f .build/debug.yaml .build/debug/description.json; }
stage 'swift build --build-tests --package-path Server (in ./.build)'
forget_plan
swift build --build-tests --package-path Server --scratch-path "$PWD/.build"
# The server's tests one at a time (about 3 min): in parallel, the raw-socket tests
# (Expect: 100-continue) waited past their read time-outs behind the model tests on two cores.
stage 'swift test --package-path Server --no-parallel'
swift test --skip-build --package-path Server --scratch-path "$PWD/.build" --no-parallel
forget_plan
stage "done"
