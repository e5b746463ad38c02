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
 * - `option abortonclose`: a client that closes its connection closes the one to its instance
 *   at once. Without it HAProxy holds the instance's side open until the answer next sends
 *   something, so a closed photo stream would keep its place among the key's open streams
 *   (STREAMS_PER_KEY) and its in-flight slot until its next heartbeat.
 * - Forwarded headers are the proxy's own: whatever a client sent as `X-Forwarded-For`,
 *   `X-Forwarded-Proto` or `X-Forwarded-Host` is deleted, then `X-Forwarded-For` is the peer
 *   address (`option forwardfor`) and `X-Forwarded-Proto` is `https` only when this frontend
 *   terminated TLS (`ssl_fc`). The instances run with TRUST_PROXY and believe these headers
 *   (client address of the limits, Secure cookies), so a client must not be able to write them.
 *   No `X-Forwarded-Host`: the instance sees the client's `Host` as it is and PUBLIC_URL decides
 *   where mailed links point (src/http/public-origin.ts).
 * - Slow clients: `timeout http-request` bounds the time from the first byte of a request to
 *   the end of its head (a header line every few seconds no longer holds a connection for
 *   `timeout client`), and each source address may hold at most `connectionsPerSource`
 *   connections at once (a stick table of current connections; over it, refused at accept), so
 *   one address cannot take all of `maxconn`. `timeout tunnel` lets an upgraded connection
 *   (a live stream, WebSocket) stay open while it is in use; ordinary long answers are bounded
 *   by `timeout server`/`timeout client` between two pieces of data, not in total.
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
  /** Seconds a client has to send a whole request head (`timeout http-request`). Default 10, as Bun's own. */
  requestHeadTimeoutS?: number
  /** Connections one source address may hold open at once. Default 100. */
  connectionsPerSource?: number
}

export function haproxyConfig(o: HaproxyConfigOptions): string {
  const inter = o.checkIntervalMs ?? 500
  const perSource = o.connectionsPerSource ?? 100
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
    `  timeout http-request ${o.requestHeadTimeoutS ?? 10}s`,
    '  timeout tunnel 1h',
    '  option redispatch',
    '  option abortonclose',
    '  retries 3',
    '  retry-on conn-failure empty-response response-timeout',
    '  http-reuse safe',
    '',
    'frontend api',
    `  bind ${o.bind}`,
    '  stick-table type ipv6 size 100k expire 60s store conn_cur',
    '  tcp-request connection track-sc0 src',
    `  tcp-request connection reject if { sc0_conn_cur gt ${perSource} }`,
    '  http-request del-header X-Forwarded-For',
    '  http-request del-header X-Forwarded-Host',
    '  http-request set-header X-Forwarded-Proto https if { ssl_fc }',
    '  http-request set-header X-Forwarded-Proto http if !{ ssl_fc }',
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
