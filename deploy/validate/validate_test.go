package main

import (
	"strings"
	"testing"
)

// A small but complete release: what the chart renders, cut down.
const good = `
# Source: treecat/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: treecat
data:
  treecat.yml: |
    storage:
      data-dir: /var/lib/treecat/data
---
apiVersion: v1
kind: Service
metadata:
  name: treecat-headless
spec:
  clusterIP: None
  selector: {app: treecat}
  ports:
    - {name: rest, port: 8181, targetPort: rest}
---
apiVersion: v1
kind: Service
metadata:
  name: treecat-admin
  labels: {app: treecat, component: admin}
spec:
  selector: {app: treecat}
  ports:
    - {name: admin, port: 8182, targetPort: admin}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: treecat
spec:
  replicas: 1
  serviceName: treecat-headless
  selector:
    matchLabels: {app: treecat}
  template:
    metadata:
      labels: {app: treecat}
    spec:
      containers:
        - name: treecat
          image: treecat:dev
          ports:
            - {name: rest, containerPort: 8181}
            - {name: admin, containerPort: 8182}
          readinessProbe:
            httpGet: {path: /healthcheck, port: admin}
          volumeMounts:
            - {name: config, mountPath: /etc/treecat}
            - {name: data, mountPath: /var/lib/treecat}
      volumes:
        - name: config
          configMap: {name: treecat}
  volumeClaimTemplates:
    - metadata: {name: data}
      spec:
        accessModes: [ReadWriteOnce]
        resources:
          requests: {storage: 1Gi}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: treecat
spec:
  maxUnavailable: 1
  selector:
    matchLabels: {app: treecat}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: treecat
spec:
  selector:
    matchLabels: {component: admin}
  endpoints:
    - {port: admin, path: /metrics/prometheus, interval: 30s}
`

func validate(t *testing.T, manifests string) []Problem {
	t.Helper()
	_, problems, err := Validate(strings.NewReader(manifests))
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return problems
}

// expectProblem asserts that exactly the expected failure is reported, naming the document.
func expectProblem(t *testing.T, manifests, where, message string) {
	t.Helper()
	problems := validate(t, manifests)
	for _, p := range problems {
		if strings.Contains(p.Where, where) && strings.Contains(p.Message, message) {
			return
		}
	}
	t.Fatalf("expected a problem in %q containing %q, got %v", where, message, problems)
}

func TestCorrectManifestsPass(t *testing.T) {
	objects, problems, err := Validate(strings.NewReader(good))
	if err != nil || len(problems) > 0 {
		t.Fatalf("expected no problems, got %v (%v)", problems, err)
	}
	if len(objects) != 6 {
		t.Fatalf("expected 6 objects, got %d", len(objects))
	}
	config, err := ConfigMapData(objects, "", "treecat.yml")
	if err != nil || !strings.Contains(config, "data-dir: /var/lib/treecat/data") {
		t.Fatalf("ConfigMapData: %q, %v", config, err)
	}
}

func TestMisspeltContainerFieldFails(t *testing.T) {
	bad := strings.Replace(good, "          ports:\n            - {name: rest", "          containerPorts:\n            - {name: rest", 1)
	expectProblem(t, bad, "StatefulSet/treecat", `unknown field "spec.template.spec.containers[0].containerPorts"`)
}

func TestMisspeltSpecFieldFails(t *testing.T) {
	bad := strings.Replace(good, "  replicas: 1\n", "  replica: 1\n", 1)
	expectProblem(t, bad, "StatefulSet/treecat", `unknown field "spec.replica"`)
}

func TestWrongTypeFails(t *testing.T) {
	bad := strings.Replace(good, "  replicas: 1\n", "  replicas: one\n", 1)
	expectProblem(t, bad, "StatefulSet/treecat", "replicas")
}

func TestDuplicateFieldFails(t *testing.T) {
	bad := strings.Replace(good, "  replicas: 1\n", "  replicas: 1\n  replicas: 2\n", 1)
	expectProblem(t, bad, "StatefulSet/treecat", "replicas")
}

func TestMisspeltServiceMonitorFieldFails(t *testing.T) {
	bad := strings.Replace(good, "  endpoints:\n", "  endpoint:\n", 1)
	expectProblem(t, bad, "ServiceMonitor/treecat", `unknown field "spec.endpoint"`)
}

func TestUnknownKindFails(t *testing.T) {
	bad := good + "---\napiVersion: apps/v1\nkind: StatefullSet\nmetadata: {name: x}\n"
	expectProblem(t, bad, "StatefullSet/x", "unknown apiVersion/kind")
}

func TestServiceTargetingAnUndeclaredPortFails(t *testing.T) {
	bad := strings.Replace(good, "{name: admin, port: 8182, targetPort: admin}", "{name: admin, port: 8182, targetPort: admni}", 1)
	expectProblem(t, bad, "Service/treecat-admin", `targetPort "admni" is not a container port`)
}

func TestProbeOnAnUndeclaredPortFails(t *testing.T) {
	bad := strings.Replace(good, "{path: /healthcheck, port: admin}", "{path: /healthcheck, port: admn}", 1)
	expectProblem(t, bad, "StatefulSet/treecat", `uses port "admn"`)
}

func TestSelectorMissingThePodFails(t *testing.T) {
	bad := strings.Replace(good, "    matchLabels: {app: treecat}\n  template:", "    matchLabels: {app: treecats}\n  template:", 1)
	expectProblem(t, bad, "StatefulSet/treecat", "does not match spec.template.metadata.labels")
}

func TestMountOfAnUndeclaredVolumeFails(t *testing.T) {
	bad := strings.Replace(good, "{name: config, mountPath: /etc/treecat}", "{name: conf, mountPath: /etc/treecat}", 1)
	expectProblem(t, bad, "StatefulSet/treecat", `mounts volume "conf"`)
}

func TestServiceMonitorOnAMissingPortFails(t *testing.T) {
	bad := strings.Replace(good, "{port: admin, path: /metrics/prometheus", "{port: metrics, path: /metrics/prometheus", 1)
	expectProblem(t, bad, "ServiceMonitor/treecat", `port "metrics" is not a port of Service treecat-admin`)
}

func TestEmptyInputFails(t *testing.T) {
	expectProblem(t, "# Source: nothing\n---\n", "input", "no Kubernetes documents")
}
