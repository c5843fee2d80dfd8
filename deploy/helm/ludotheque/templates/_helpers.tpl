{{/* Names and labels shared by the templates. */}}

{{- define "ludotheque.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's base name; suffixes (-redis, -headless) keep names within 63 characters. */}}
{{- define "ludotheque.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "ludotheque.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "ludotheque.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ludotheque.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "ludotheque.labels" -}}
helm.sh/chart: {{ include "ludotheque.chart" . }}
{{ include "ludotheque.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: ludotheque
{{- end }}

{{/* The server pods (selected by the Services, the PDB, the HPA's Deployment). */}}
{{- define "ludotheque.serverSelectorLabels" -}}
{{ include "ludotheque.selectorLabels" . }}
app.kubernetes.io/component: server
{{- end }}

{{- define "ludotheque.redisFullname" -}}
{{- printf "%s-redis" (include "ludotheque.fullname" .) }}
{{- end }}

{{- define "ludotheque.redisSelectorLabels" -}}
{{ include "ludotheque.selectorLabels" . }}
app.kubernetes.io/component: redis
{{- end }}

{{- define "ludotheque.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "ludotheque.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "ludotheque.secretName" -}}
{{- default (include "ludotheque.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{- define "ludotheque.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The Secret holding the bundled Redis's password, if Redis asks for one. */}}
{{- define "ludotheque.redisAuthSecret" -}}
{{- if and (eq .Values.store.mode "bundled") .Values.redis.auth.enabled }}
{{- default (include "ludotheque.redisFullname" .) .Values.redis.auth.existingSecret }}
{{- end }}
{{- end }}

{{/* The key of that Secret that holds the password. */}}
{{- define "ludotheque.redisAuthKey" -}}
{{- ternary .Values.redis.auth.existingSecretKey "redis-password" (ne .Values.redis.auth.existingSecret "") }}
{{- end }}

{{/* LUDOTHEQUE_STORE, unless it comes from a Secret (store.external.urlSecret). With the
     bundled Redis's password, $(REDIS_PASSWORD): the kubelet puts it in from the Secret. */}}
{{- define "ludotheque.storeUrl" -}}
{{- if eq .Values.store.mode "bundled" }}
{{- $password := ternary ":$(REDIS_PASSWORD)@" "" (ne (include "ludotheque.redisAuthSecret" .) "") }}
{{- printf "redis://%s%s:%d/0" $password (include "ludotheque.redisFullname" .) (int .Values.redis.port) }}
{{- else if eq .Values.store.mode "external" }}
{{- .Values.store.external.url }}
{{- else }}
{{- "memory" }}
{{- end }}
{{- end }}

{{/* Seconds from "stop" to SIGKILL: longer than the preStop pause plus the server's drain. */}}
{{- define "ludotheque.terminationGracePeriodSeconds" -}}
{{- $drain := add (int .Values.preStopSleepSeconds) (.Values.config.shutdownGrace | float64 | ceil | int) }}
{{- if kindIs "invalid" .Values.terminationGracePeriodSeconds }}
{{- add $drain 5 }}
{{- else if le (int .Values.terminationGracePeriodSeconds) $drain }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed preStopSleepSeconds + config.shutdownGrace (%d): pods would be killed while still draining calls" (int .Values.terminationGracePeriodSeconds) $drain) }}
{{- else }}
{{- int .Values.terminationGracePeriodSeconds }}
{{- end }}
{{- end }}

{{/* A value as an environment variable's text. Helm reads every number as a float, which
     prints 1048576 as 1.048576e+06: whole numbers print as integers. */}}
{{- define "ludotheque.envValue" -}}
{{- if and (kindIs "float64" .) (eq . (floor .)) }}
{{- int64 . | toString | quote }}
{{- else }}
{{- toString . | quote }}
{{- end }}
{{- end }}

{{/* Rules across values that values.schema.json cannot say clearly. */}}
{{- define "ludotheque.validate" -}}
{{- if and (eq .Values.store.mode "external") (not .Values.store.external.url) (not .Values.store.external.urlSecret.name) }}
{{- fail "store.mode=external needs store.external.url (redis://host:6379/0 or redis+cluster://host:6379) or store.external.urlSecret.name" }}
{{- end }}
{{- if and (ne .Values.store.mode "external") (or .Values.store.external.url .Values.store.external.urlSecret.name) }}
{{- fail (printf "store.external is set but store.mode is %q: set store.mode=external to use it" .Values.store.mode) }}
{{- end }}
{{- if and (eq .Values.store.mode "memory") (or .Values.autoscaling.enabled (gt (int .Values.replicaCount) 1)) }}
{{- fail "store.mode=memory keeps the games inside one pod: it needs replicaCount=1 and autoscaling.enabled=false (use store.mode=bundled or external to scale)" }}
{{- end }}
{{- if and .Values.autoscaling.enabled (gt (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas)) }}
{{- fail (printf "autoscaling.minReplicas (%d) exceeds autoscaling.maxReplicas (%d)" (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas)) }}
{{- end }}
{{- if and (gt (int .Values.store.waitReplicas) 0) (ne .Values.store.mode "external") }}
{{- fail "store.waitReplicas needs Redis replicas: only an external Redis (store.mode=external) has them" }}
{{- end }}
{{- if and (eq .Values.config.createPolicy "api-keys") (not (include "ludotheque.apiKeysSecret" .)) }}
{{- fail "config.createPolicy=api-keys needs access.apiKeys.existingSecret or access.apiKeys.hashes" }}
{{- end }}
{{- if eq .Values.config.createPolicy "jwt" }}
{{- if and (not .Values.config.jwks) (not .Values.access.jwks.configMap) }}
{{- fail "config.createPolicy=jwt needs config.jwks (the JWKS URL) or access.jwks.configMap" }}
{{- end }}
{{- if and .Values.config.jwks .Values.access.jwks.configMap }}
{{- fail "config.jwks and access.jwks.configMap both name a JWKS: keep one" }}
{{- end }}
{{- if or (not .Values.config.jwtIssuer) (not .Values.config.jwtAudience) }}
{{- fail "config.createPolicy=jwt needs config.jwtIssuer and config.jwtAudience" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The Secret holding the API keys file, if any: yours, or the chart's from access.apiKeys.hashes. */}}
{{- define "ludotheque.apiKeysSecret" -}}
{{- if .Values.access.apiKeys.existingSecret }}
{{- .Values.access.apiKeys.existingSecret }}
{{- else if .Values.access.apiKeys.hashes }}
{{- include "ludotheque.fullname" . }}-api-keys
{{- end }}
{{- end }}

{{/* The key of that Secret that holds the file. */}}
{{- define "ludotheque.apiKeysKey" -}}
{{- ternary .Values.access.apiKeys.key "api-keys" (ne .Values.access.apiKeys.existingSecret "") }}
{{- end }}

{{/* The PromQL label matchers of this release's series (prometheusRule.selector, or the
     namespace and job the ServiceMonitor gives them). */}}
{{- define "ludotheque.metricSelector" -}}
{{- default (printf "namespace=%q, job=%q" .Release.Namespace (include "ludotheque.fullname" .)) .Values.prometheusRule.selector }}
{{- end }}

{{/* An alert's labels: its severity and prometheusRule.additionalAlertLabels (which may
     not replace the severity). Takes a dict: severity, extra. */}}
{{- define "ludotheque.alertLabels" -}}
severity: {{ .severity }}
{{- with .extra }}
{{ toYaml . }}
{{- end }}
{{- end }}
