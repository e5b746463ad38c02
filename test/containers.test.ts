import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { composeInstances, HAPROXY_PORT, SERVICE_PORT, stackHaproxyConfig } from '../deploy/containers/build-images'

/**
 * The parts of the container deployment that can be checked without podman (the whole stack runs
 * in `npm run container-test`): which compose services HAProxy balances, and that the
 * configuration baked into the HAProxy image is one HAProxy accepts before any instance exists.
 */
const ROOT = join(import.meta.dir, '..')
const haproxyBin = Bun.which('haproxy') ?? Bun.which('haproxy', { PATH: '/usr/sbin:/usr/local/sbin' })

describe('container deployment', () => {
  test("HAProxy's backend is every compose service running the service image except the update job", () => {
    expect(composeInstances()).toEqual(['api1', 'api2'])
    const withThird = readFileSync(join(ROOT, 'compose.yaml'), 'utf8').replace('\n  haproxy:\n', '\n  api3:\n    <<: *service\n\n  haproxy:\n')
    expect(composeInstances(withThird)).toEqual(['api1', 'api2', 'api3'])
  })

  test('the stack configuration binds HAProxy\'s port, checks each instance by name on /health and resolves the names at run time', () => {
    const cfg = stackHaproxyConfig(['api1', 'api2'])
    expect(cfg).toContain(`  bind :${HAPROXY_PORT}\n`)
    expect(cfg).toContain('http-check send meth GET uri /health')
    expect(cfg).toContain(`  server i1 api1:${SERVICE_PORT} check resolvers system init-addr last,libc,none\n`)
    expect(cfg).toContain(`  server i2 api2:${SERVICE_PORT} check resolvers system init-addr last,libc,none\n`)
    expect(cfg).toContain('resolvers system\n  parse-resolv-conf\n')
  })

  test.skipIf(!haproxyBin)('HAProxy accepts the stack configuration while no instance name resolves yet (the image is built before any instance runs)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mv-haproxy-cfg-'))
    try {
      const file = join(dir, 'haproxy.cfg')
      writeFileSync(file, stackHaproxyConfig(['mars-instance-not-resolvable-1', 'mars-instance-not-resolvable-2']))
      const p = Bun.spawn([haproxyBin!, '-c', '-f', file], { stdout: 'pipe', stderr: 'pipe' })
      const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
      expect(code).toBe(0)
      expect(out).toContain('Configuration file is valid')
      // Said, not fatal: the servers start without an address and are resolved at run time.
      expect(err).toContain("could not resolve address 'mars-instance-not-resolvable-1', disabling server")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
