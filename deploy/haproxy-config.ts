/**
 * The HAProxy configuration of a multi-machine deployment: one frontend, the instances behind it
 * in round robin, each checked on GET /health. The cluster test runs exactly this text
 * (test/cluster.test.ts); docs/scale-out.md shows it for three machines.
 *
 * - `GET /health` (HTTP/1.1, with a Host: the service refuses a request without one) every
 *   500 ms, down after 2 failures: a dead instance leaves the rotation within about a second.
 *   `/health` needs no key and is never counted.
 * - `retry-on conn-failure empty-response response-timeout` with `option redispatch`: a request
 *   whose instance died before answering is sent again to another one. Only idempotent
 *   requests are retried by HAProxy; the API is read-only (GET, and POST batch, which reads).
 * - `http-reuse safe`: keep-alive connections to the instances, as the instances expect.
 */
export interface HaproxyConfigOptions {
  /** Address the load balancer listens on, e.g. `127.0.0.1:8080` or `:443 ssl crt ...`. */
  bind: string
  /** Instances as `host:port`. */
  servers: string[]
  /**
   * The servers are DNS names that may not resolve yet when HAProxy starts and whose address
   * changes when they restart (containers: compose.yaml): resolved again at run time through the
   * nameservers of /etc/resolv.conf; a name not known yet starts its server without an address
   * (down) instead of refusing the whole configuration.
   */
  resolveNames?: boolean
  /** A unix socket for `show stat` (the cluster test reads which servers are up). */
  statsSocket?: string
  /** Milliseconds between health checks. */
  checkIntervalMs?: number
}

export function haproxyConfig(o: HaproxyConfigOptions): string {
  const inter = o.checkIntervalMs ?? 500
  return [
    'global',
    '  maxconn 4000',
    ...(o.statsSocket ? [`  stats socket ${o.statsSocket} mode 600 level admin`] : []),
    '',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout http-keep-alive 10s',
    '  option redispatch',
    '  retries 3',
    '  retry-on conn-failure empty-response response-timeout',
    '  http-reuse safe',
    '',
    'frontend api',
    `  bind ${o.bind}`,
    '  option forwardfor',
    '  default_backend instances',
    '',
    'backend instances',
    '  balance roundrobin',
    // HTTP/1.1 with a Host: the service answers a request without a valid Host with 400.
    '  option httpchk',
    '  http-check send meth GET uri /health ver HTTP/1.1 hdr Host health.check',
    '  http-check expect status 200',
    `  default-server inter ${inter}ms fall 2 rise 2`,
    ...o.servers.map((s, i) => `  server i${i + 1} ${s} check${o.resolveNames ? ' resolvers system init-addr last,libc,none' : ''}`),
    '',
    ...(o.resolveNames ? ['resolvers system', '  parse-resolv-conf', '  hold valid 10s', ''] : []),
  ].join('\n')
}
