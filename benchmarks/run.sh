#!/usr/bin/env bash
# The benchmark suite, as one command (benchmarks/README.md):
#
#   benchmarks/run.sh [small|medium|paper] [experiment…]      e.g. benchmarks/run.sh small concurrency
#   benchmarks/run.sh --list                                    the experiments, in the report's order
#
# Builds the server, the benchmarks and the Nessie and Hive peers (skipping tests), runs the chosen experiments (all by default), each starting
# and stopping what it compares against, and writes benchmarks/results/<preset>-<time>/: report.md with its PNG
# charts, one CSV per table, results.json and the machine's summary. Options before the preset: --out DIR,
# --keep-work (keep the stores). SUITE_JAVA_OPTS sets the driver's JVM options (default -Xmx6g); SKIP_BUILD=1 reuses
# the last build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  ./mvnw -B -q -DskipTests -Dspotless.check.skip=true -pl catalog-server,benchmarks -am package
  # The Nessie peer's runner jar (276 MB, once): outside the reactor, so that `mvn verify` never downloads it.
  if [[ ! -f benchmarks/nessie-peer/target/nessie-quarkus-runner.jar ]]; then
    ./mvnw -B -q -f benchmarks/nessie-peer/pom.xml package
  fi
  # The Hive 4.0.1 metastore's classpath and schema scripts (once), outside the reactor for the same reason.
  if [[ ! -d benchmarks/hms-peer/target/lib ]]; then
    ./mvnw -B -q -f benchmarks/hms-peer/pom.xml package
  fi
fi
# shellcheck disable=SC2086 # the options are words
exec java ${SUITE_JAVA_OPTS:--Xmx6g} -Djava.awt.headless=true \
  -cp benchmarks/target/treecat-benchmarks.jar io.treecat.benchmarks.suite.Suite "${@:-small}"
