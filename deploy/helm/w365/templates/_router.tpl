{{- /* nginx.conf of the router: hashes each request onto one host by its session. */ -}}
{{- define "w365.routerConf" -}}
{{- $fullname := include "w365.fullname" . -}}
pid /tmp/nginx.pid;
worker_processes auto;
error_log stderr warn;
events {}
http {
  access_log off;
  client_body_temp_path /tmp/client_body;
  proxy_temp_path /tmp/proxy;
  fastcgi_temp_path /tmp/fastcgi;
  uwsgi_temp_path /tmp/uwsgi;
  scgi_temp_path /tmp/scgi;
  {{- if not .Values.router.upstreams }}
  resolver {{ .Values.router.resolver }} valid=10s;
  {{- end }}
  # The session a request belongs to: its W365-Session header (the session name w365
  # acts in), else the client's address, so that a client without the header still
  # reaches the pod that holds its MCP connection.
  map $http_x_forwarded_for $w365_client {
    ""      $remote_addr;
    default $http_x_forwarded_for;
  }
  map $http_w365_session $w365_route {
    ""      $w365_client;
    default $http_w365_session;
  }
  upstream w365_hosts {
    zone w365_hosts 64k;
    hash $w365_route consistent;
    {{- range .Values.router.upstreams }}
    server {{ . }};
    {{- else }}
    {{- range $i := until (int .Values.hosts.replicas) }}
    server {{ $fullname }}-{{ $i }}.{{ $fullname }}-hosts.{{ $.Release.Namespace }}.svc.{{ $.Values.router.clusterDomain }}:{{ $.Values.hosts.port }} resolve;
    {{- end }}
    {{- end }}
  }
  server {
    listen {{ .Values.router.port }};
    location = /router-healthz {
      return 200 "ok\n";
    }
    location / {
      proxy_pass http://w365_hosts;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      # Streamable HTTP answers with server-sent events: pass them through as they come.
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
    }
  }
}
{{- end -}}
