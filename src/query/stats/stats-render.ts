import type { Store } from '../../store/store'
import { link } from '../../http/links'
import { dayText } from '../bytes/day-text'
import { TIMESTAMP_SLOT } from '../render/envelope'
import { formatPercentUnits, percentageUnits } from './percentages'
import { solGroupsJson } from './sol-groups'
import { STATS_PATH, type GroupBy } from './stats-params'
import type { StatsTally } from './tally-loops'

/**
 * The statistics envelope (decisions.md, Other endpoints) from a tally:
 *  - camera groups: keyed by camera name (same-named cameras of different rovers are one
 *    group), ordered by count descending, then key;
 *  - rover groups: keyed by slug (the store's rover catalogue), with avg_per_sol = count /
 *    distinct sols with photos in the group (one decimal), ordered by count descending, then
 *    rover code;
 *  - sol groups: keyed by the sol number (as a string), with earth_date = the earliest Earth
 *    date of the group's photos (a sol spans two UTC dates, and rovers share sol numbers),
 *    ordered by sol ascending (sol-groups.ts).
 * All groups are returned. percentage = count / total_photos * 100 to 4 decimals by largest
 * remainder (percentages.ts). period = earliest and latest earth_date of the matched photos;
 * `{}` when nothing matched.
 */
export function renderStats(store: Store, t: StatsTally, groupBy: GroupBy, params: URLSearchParams, base: string): string {
  const { json, count } = groupBy === 'camera' ? cameraGroups(store, t) : groupBy === 'rover' ? roverGroups(store, t) : solGroupsJson(store, t)
  const [minDay, maxDay] = t.period
  const periodJson = t.total > 0 && Number.isFinite(minDay) ? `{"from":"${dayText(minDay)}","to":"${dayText(maxDay)}"}` : '{}'
  const data = `{"total_photos":${t.total},"period":${periodJson},"groups":[${json}]}`
  const meta = `{"group_by":"${groupBy}","returned_count":${count},"timestamp":${TIMESTAMP_SLOT}}`
  return `{"data":${data},"meta":${meta},"links":{"self":${JSON.stringify(link(base, STATS_PATH, params))}}}`
}

interface Groups {
  json: string
  count: number
}

function cameraGroups(store: Store, t: StatsTally): Groups {
  const byName = new Map<string, number>()
  store.photos.camera.dict.forEach((name, code) => {
    const n = t.byCode[code]
    if (n > 0) byName.set(name, (byName.get(name) ?? 0) + n)
  })
  const sorted = [...byName].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const units = percentageUnits(sorted.map((g) => g[1]))
  const groups = sorted.map(([name, n], i) => `{"key":${JSON.stringify(name)},"count":${n},"percentage":${formatPercentUnits(units[i]!)}}`)
  return { json: groups.join(','), count: groups.length }
}

function roverGroups(store: Store, t: StatsTally): Groups {
  const { roverCounts, roverSolSeen, span } = t
  const order = [...store.rovers.keys()].filter((c) => roverCounts[c] > 0).sort((a, b) => roverCounts[b] - roverCounts[a] || a - b)
  const units = percentageUnits(order.map((c) => roverCounts[c]))
  const groups = order.map((c, i) => {
    // Distinct sols: the rover's seen flags, without the "no sol" rank (span - 1).
    let sols = 0
    for (let k = c * span, end = k + span - 1; k < end; k++) sols += roverSolSeen[k]
    const avg = sols > 0 ? Math.round((roverCounts[c] / sols) * 10) / 10 : 0
    return `{"key":${JSON.stringify(store.rovers[c])},"count":${roverCounts[c]},"percentage":${formatPercentUnits(units[i]!)},"avg_per_sol":${avg}}`
  })
  return { json: groups.join(','), count: groups.length }
}
