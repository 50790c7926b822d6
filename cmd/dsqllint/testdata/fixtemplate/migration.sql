-- Rendered with Go's text/template by the migration tool before it runs.
{{/* the sessions store */}}
CREATE TABLE IF NOT EXISTS {{ .Schema }}.sessions (id bigserial PRIMARY KEY, owner text, expires_at timestamptz NOT NULL);
CREATE INDEX sessions_expiry ON {{ index .Options "Namespace" }}_sessions (expires_at);
{{- if .ByOwner }}
create index {{ .Prefix }}sessions_owner on {{ .Schema }}.sessions (owner);
{{- end }}
CREATE INDEX ASYNC sessions_{{ .Suffix }} ON {{ .Schema }}.sessions (expires_at);
TRUNCATE {{ if .Table }}TABLE{{ end }} {{ .Schema }}.sessions;
