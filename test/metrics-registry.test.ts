import { describe, expect, test } from 'bun:test'
import { Counter, Histogram } from '../src/metrics/metrics-registry'
import { ServiceMetrics } from '../src/metrics/service-metrics'

/** The Prometheus figures are exact: every observation counted once, buckets cumulative (le = "less or equal"). */
describe('metrics registry', () => {
  test('histogram buckets are cumulative, +Inf is the count, sum is the sum, whichever bucket each value falls in', () => {
    const h = new Histogram('t_seconds', 'test', ['route'], [0.001, 0.01, 0.1])
    for (const v of [0.0005, 0.001, 0.002, 0.05, 0.05, 3]) h.observe(['/a'], v)
    h.observe(['/b'], 0.2)
    const text = h.render()
    const bucket = (route: string, le: string) => Number(new RegExp(`t_seconds_bucket\\{route="${route}",le="${le.replace('+', '\\+')}"\\} (\\S+)`).exec(text)![1])
    expect([bucket('/a', '0.001'), bucket('/a', '0.01'), bucket('/a', '0.1'), bucket('/a', '+Inf')]).toEqual([2, 3, 5, 6])
    expect([bucket('/b', '0.001'), bucket('/b', '0.01'), bucket('/b', '0.1'), bucket('/b', '+Inf')]).toEqual([0, 0, 0, 1])
    expect(text).toMatch(/t_seconds_sum\{route="\/a"\} 3\.1035/)
    expect(text).toContain('t_seconds_count{route="/a"} 6')
  })

  test('a counter series kept by a caller and the same series by label values are one series', () => {
    const c = new Counter('t_total', 'test', ['a', 'b'])
    const s = c.series('x\u0000y')
    s.value += 2
    c.inc(['x', 'y'])
    c.inc(['x', 'z'], 5)
    expect(c.render()).toContain('t_total{a="x",b="y"} 3')
    expect(c.render()).toContain('t_total{a="x",b="z"} 5')
  })

  test('service metrics count every observed answer exactly once per route, method and status, and keyed decisions apart', () => {
    const m = new ServiceMetrics({} as never)
    for (let i = 0; i < 1000; i++) m.observe('/api/v2/photos', 'GET', i % 10 === 0 ? 304 : 200, 0.0002, true)
    m.observe('/api/v2/photos', 'HEAD', 200, 0.0002, true)
    m.observe('/api/v2/photos', 'GET', 429, 0.0002, true)
    m.observe('/health', 'GET', 200, 0.0002, false)
    const text = m.requests.render() + m.latency.render() + m.limiter.render()
    expect(text).toContain('http_requests_total{route="/api/v2/photos",method="GET",status="200"} 900')
    expect(text).toContain('http_requests_total{route="/api/v2/photos",method="GET",status="304"} 100')
    expect(text).toContain('http_requests_total{route="/api/v2/photos",method="HEAD",status="200"} 1')
    expect(text).toContain('http_requests_total{route="/health",method="GET",status="200"} 1')
    expect(text).toContain('http_request_duration_seconds_bucket{route="/api/v2/photos",method="GET",status="200",le="0.0005"} 900')
    expect(text).toContain('http_request_duration_seconds_count{route="/api/v2/photos",method="GET",status="304"} 100')
    expect(text).toContain('rate_limit_decisions_total{decision="admitted"} 901') // 304s are not decisions
    expect(text).toContain('rate_limit_decisions_total{decision="refused"} 1')
  })
})
