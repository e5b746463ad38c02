/**
 * The "how to query this catalogue" guide an MCP client can read as a resource: written for a
 * model choosing between the tools, in the catalogue's own terms.
 */
export const CATALOGUE_GUIDE = `# Querying the Mars rover photo catalogue

The catalogue holds photos taken by NASA's Mars rovers (curiosity, opportunity, perseverance,
spirit), with the rover, camera, sol (Mars day of the mission), Earth date, Mars local time, and
where the rover stood (site and drive). Every tool answers exactly what the HTTP API answers for
the same parameters (see the OpenAPI resource); arguments are named like its query parameters.

## Which tool
- Start with \`list_rovers\` and \`list_cameras\` (rover=...) to learn the slugs, sols and camera abbreviations.
- \`rover_manifest\` (slug, sol_min, sol_max): which sols have photos, and from which cameras. Use it to
  turn "the first week" or "around sol 1000" into sol ranges.
- \`search_photos\`: the photos themselves. Filters combine with AND: rovers, cameras, sol / sol_min /
  sol_max, earth_date_min / earth_date_max, mars_time_min / mars_time_max (Mars local time,
  e.g. 16:00:00), mars_time_golden_hour, site / drive ranges and more. Answers the total and 25
  compact rows by default (id, rover, camera, sol, earth_date, date_taken_mars, img_src, site,
  drive); pass \`next_cursor\` back as \`cursor\` (same other arguments) for the next rows,
  \`fields\` or \`field_set\` for other attributes, \`sort\` to order (prefix "-" for descending).
- \`photo_stats\`: counts instead of rows (group_by camera, rover or sol) - cheaper than paging.
- \`get_photos\` (ids): full records of photos you already found.
- \`find_locations\`, \`find_panoramas\`: the places most photographed, and detected panorama sequences.
- \`rover_traverse\` (slug, sol_min, sol_max): where the rover drove, distance and elevation.
- \`related_photos\` (id): the other eye of a stereo pair, the photo's observation sequence, and what
  was photographed within radius_m metres of it on other sols. search_photos also takes stereo=true,
  sequence=<id>, and near_photo or lat/lon with radius_m (sort=distance for nearest first).

## Arguments
Integers and numbers are JSON numbers, booleans JSON booleans; list arguments (rovers, cameras,
fields, sort) a comma-separated string or an array of strings. A bad argument is a tool error
naming the argument and what it allows: fix that argument and call again.

## Example
"Perseverance's Mastcam-Z photos from its first week, in the late afternoon":
\`search_photos\` with rovers "perseverance", cameras "MCZ_LEFT,MCZ_RIGHT", sol_min 0, sol_max 7,
mars_time_min "15:00:00", mars_time_max "18:00:00".
`
