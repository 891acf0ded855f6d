{{/* The chart name, or nameOverride. */}}
{{- define "treecat.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: objects are named after it. */}}
{{- define "treecat.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "treecat.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels every object carries. */}}
{{- define "treecat.labels" -}}
helm.sh/chart: {{ include "treecat.chart" . }}
{{ include "treecat.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The labels that select the pod: they must never change for a release. */}}
{{- define "treecat.selectorLabels" -}}
app.kubernetes.io/name: {{ include "treecat.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "treecat.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "treecat.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "treecat.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/* Where the server's YAML is mounted. */}}
{{- define "treecat.configFile" -}}
/etc/treecat/treecat.yml
{{- end }}

{{- define "treecat.warehouse" -}}
{{- .Values.config.warehouse.location | default (printf "%s/warehouse" .Values.persistence.mountPath) }}
{{- end }}

{{/*
A config value the environment may override: ${NAME:-value}, quoted for YAML. Dropwizard substitutes
it before parsing, so the quotes survive around the result. Takes (list "NAME" value).
*/}}
{{- define "treecat.overridable" -}}
{{- printf "${%s:-%v}" (index . 0) (index . 1) | quote }}
{{- end }}

{{/*
The tls: block every listener takes (docs/configuration.md), over the mounted TLS Secret's files.
*/}}
{{- define "treecat.tlsConfig" -}}
certificate-chain: {{ printf "%s/tls.crt" .Values.tls.mountPath | quote }}
private-key: {{ printf "%s/tls.key" .Values.tls.mountPath | quote }}
{{- if .Values.tls.clientCa }}
client-ca: {{ printf "%s/ca.crt" .Values.tls.mountPath | quote }}
{{- end }}
{{- end }}

{{/*
The admin port's scheme: HTTPS when it serves TLS (the kubelet's HTTPS probes do not verify the certificate).
*/}}
{{- define "treecat.adminScheme" -}}
{{- if and .Values.tls.secretName .Values.tls.admin }}HTTPS{{ else }}HTTP{{ end }}
{{- end }}

{{/* The headless Service: the StatefulSet's serviceName, which gives each pod its DNS name. */}}
{{- define "treecat.headless" -}}
{{- printf "%s-headless" (include "treecat.fullname" .) }}
{{- end }}

{{/*
replication.peers: every pod of the StatefulSet as <pod>=<pod>.<headless>.<namespace>.svc.<domain>:<port>, the
pod's name being its node id. One YAML list item per line.
*/}}
{{- define "treecat.peers" -}}
{{- $fullname := include "treecat.fullname" . }}
{{- $headless := include "treecat.headless" . }}
{{- range $i := until (int .Values.replicaCount) }}
- {{ printf "%s-%d=%s-%d.%s.%s.svc.%s:%d" $fullname $i $fullname $i $headless $.Release.Namespace $.Values.replication.clusterDomain (int $.Values.replication.port) | quote }}
{{- end }}
{{- end }}
