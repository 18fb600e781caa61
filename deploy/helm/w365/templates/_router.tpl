{{- /* nginx.conf of the router: sends each request to the host of its session. */ -}}
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
  # Where a request goes. A session id a host handed out names that host
  # (ROUTE.s-...: the host's --route-name, here its pod name): a request carrying such
  # an id as Mcp-Param-Session (the header a 2026-07-28 client sends a tool's sessionId
  # or browserSessionId in) goes to that host, on whatever pod it arrives. Any other
  # request is hashed onto a host by its session: Mcp-Param-Session, else W365-Session
  # (the session name older clients send on every request), else the client's address,
  # so that a client without either still reaches the pod that holds its MCP connection.
  map $http_x_forwarded_for $w365_client {
    ""      $remote_addr;
    default $http_x_forwarded_for;
  }
  map $http_w365_session $w365_named {
    ""      $w365_client;
    default $http_w365_session;
  }
  map $http_mcp_param_session $w365_route {
    ""      $w365_named;
    default $http_mcp_param_session;
  }
  map $http_mcp_param_session $w365_session_upstream {
    default w365_hosts;
    {{- range $i, $_ := (include "w365.routerHosts" . | fromJsonArray) }}
    "~^{{ $fullname }}-{{ $i }}\." w365_host_{{ $i }};
    {{- end }}
  }
  # A tasks/ request (MCP's tasks extension) names its task in Mcp-Name, and a task id
  # names the host that made it (ROUTE.t-...) as a session id does.
  map "$http_mcp_method $http_mcp_name" $w365_upstream {
    default $w365_session_upstream;
    {{- range $i, $_ := (include "w365.routerHosts" . | fromJsonArray) }}
    "~^tasks/[a-z]+ {{ $fullname }}-{{ $i }}\." w365_host_{{ $i }};
    {{- end }}
  }
  upstream w365_hosts {
    zone w365_hosts 64k;
    hash $w365_route consistent;
    {{- range (include "w365.routerHosts" . | fromJsonArray) }}
    server {{ . }};
    {{- end }}
  }
  {{- range $i, $h := (include "w365.routerHosts" . | fromJsonArray) }}
  upstream w365_host_{{ $i }} {
    zone w365_host_{{ $i }} 64k;
    server {{ $h }};
  }
  {{- end }}
  server {
    listen {{ .Values.router.port }};
    location = /router-healthz {
      return 200 "ok\n";
    }
    location / {
      proxy_pass http://$w365_upstream;
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

{{- /* The router's hosts as a JSON list of nginx server lines, in route-name order:
host i is the one started with --route-name FULLNAME-i (the pods' own names). */ -}}
{{- define "w365.routerHosts" -}}
{{- $fullname := include "w365.fullname" . -}}
{{- $hosts := list -}}
{{- range .Values.router.upstreams }}
{{- $hosts = append $hosts . -}}
{{- else }}
{{- range $i := until (int .Values.hosts.replicas) }}
{{- $hosts = append $hosts (printf "%s-%d.%s-hosts.%s.svc.%s:%v resolve" $fullname $i $fullname $.Release.Namespace $.Values.router.clusterDomain $.Values.hosts.port) -}}
{{- end }}
{{- end }}
{{- toJson $hosts -}}
{{- end -}}
