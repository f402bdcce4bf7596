{{/* Names and labels. */}}
{{- define "sqloop.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sqloop.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "sqloop.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "sqloop.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "sqloop.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "sqloop.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: sqloop
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "executor"). */}}
{{- define "sqloop.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sqloop.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "sqloop.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/*
What each stage is: the service `sqloop run` starts, the topic it consumes, its consumer group's suffix
(SQLOOP_GROUP_PREFIX + "-" + stage name, see RunnerConfig), and what configuration it needs.
datasources: "full" (connections: fewshot, validator, executor) or "dialects" (generator, repair).
more: further topics the service consumes that KEDA also watches (fewshot's auto-capture of successes).
*/}}
{{- define "sqloop.stageSpecs" -}}
fewshot:   {run: fewshot,   topic: retrieve-examples, group: retrieve-examples, datasources: full,     llm: false, store: true,
            more: [{topic: success, group: capture}]}
generator: {run: generator, topic: generate,          group: generate,          datasources: dialects, llm: true,  store: false, workers: generate,
            more: [{topic: regenerate, group: regenerate}]}
repair:    {run: repair,    topic: repair-feedback,   group: repair,            datasources: dialects, llm: true,  store: true,  workers: repair}
validator: {run: validator, topic: static-validate,   group: static-validate,   datasources: full,     llm: false, store: false}
executor:  {run: executor,  topic: execute,           group: execute,           datasources: full,     llm: false, store: false}
{{- end -}}

{{/* A {name, secretName, key} list as env entries with secretKeyRef. */}}
{{- define "sqloop.secretEnv" -}}
{{- range . }}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: {{ .key }}
{{- end }}
{{- end -}}

{{/* A name → value map as env entries (sorted by name). */}}
{{- define "sqloop.envMap" -}}
{{- range $k, $v := . }}
- name: {{ $k }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- end -}}

{{/* Env every service gets: Kafka, shared settings. */}}
{{- define "sqloop.commonEnv" -}}
- name: JAVA_OPTS
  value: {{ .Values.javaOpts | quote }}
- name: SQLOOP_BOOTSTRAP_SERVERS
  value: {{ required "kafka.bootstrapServers is required" .Values.kafka.bootstrapServers | quote }}
- name: SQLOOP_GROUP_PREFIX
  value: {{ .Values.kafka.groupPrefix | quote }}
{{- range $k, $v := .Values.kafka.settings }}
- name: {{ printf "SQLOOP_KAFKA_%s" ($k | upper) }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- include "sqloop.secretEnv" .Values.kafka.secretEnv }}
{{- include "sqloop.envMap" .Values.env }}
{{- end -}}

{{- define "sqloop.llmEnv" -}}
- name: SQLOOP_LLM_PROVIDER
  value: {{ .Values.llm.provider | quote }}
- name: SQLOOP_LLM_BASE_URL
  value: {{ required "llm.baseUrl is required" .Values.llm.baseUrl | quote }}
- name: SQLOOP_LLM_MODEL
  value: {{ .Values.llm.model | quote }}
{{- range $k, $v := .Values.llm.settings }}
- name: {{ printf "SQLOOP_LLM_%s" ($k | upper) }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- if .Values.llm.apiKey.existingSecret }}
- name: SQLOOP_LLM_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.llm.apiKey.existingSecret }}
      key: {{ .Values.llm.apiKey.key }}
{{- end }}
{{- end -}}

{{- define "sqloop.storeEnv" -}}
- name: SQLOOP_FEWSHOT_STORE
  value: {{ .Values.store.kind | quote }}
- name: SQLOOP_EMBEDDING_MODEL
  value: {{ .Values.store.embeddingModel | quote }}
{{- if eq .Values.store.kind "lucene" }}
- name: SQLOOP_FEWSHOT_LUCENE_PATH
  value: {{ .Values.store.lucenePath | quote }}
{{- else }}
- name: SQLOOP_FEWSHOT_QDRANT_HOST
  value: {{ .Values.store.qdrant.host | quote }}
- name: SQLOOP_FEWSHOT_QDRANT_PORT
  value: {{ .Values.store.qdrant.port | quote }}
- name: SQLOOP_FEWSHOT_QDRANT_TLS
  value: {{ .Values.store.qdrant.tls | quote }}
- name: SQLOOP_FEWSHOT_QDRANT_COLLECTION_PREFIX
  value: {{ .Values.store.qdrant.collectionPrefix | quote }}
{{- if .Values.store.qdrant.apiKey.existingSecret }}
- name: SQLOOP_FEWSHOT_QDRANT_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.store.qdrant.apiKey.existingSecret }}
      key: {{ .Values.store.qdrant.apiKey.key }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Datasource passwords (services with connections only). */}}
{{- define "sqloop.datasourcePasswords" -}}
{{- range $name, $ds := .Values.datasources }}
{{- if and $ds.password $ds.password.existingSecret }}
- name: {{ printf "SQLOOP_DATASOURCE_%s_PASSWORD" ($name | upper) }}
  valueFrom:
    secretKeyRef:
      name: {{ $ds.password.existingSecret }}
      key: {{ $ds.password.key | default "password" }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "sqloop.probes" -}}
startupProbe:
  httpGet: {path: /healthy, port: {{ .port }}}
  {{- toYaml .probes.startup | nindent 2 }}
livenessProbe:
  httpGet: {path: /healthy, port: {{ .port }}}
  {{- toYaml .probes.liveness | nindent 2 }}
readinessProbe:
  httpGet: {path: /ready, port: {{ .port }}}
  {{- toYaml .probes.readiness | nindent 2 }}
{{- end -}}
