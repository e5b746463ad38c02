/**
 * The Markdown of the OpenAPI descriptions as HTML, rendered on the server: paragraphs, `-`
 * lists, `code`, **strong**, *emphasis* and [links](url) (CommonMark's common subset, which is
 * what the descriptions use). Every piece of text is escaped before any tag is written, and only
 * http(s), relative and `#` links become anchors, so a description can never inject markup.
 */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
}

const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)|(\[([^\]]+)\]\(([^)\s]+)\))/g
const SAFE_HREF = /^(https?:\/\/|\/|#)/

/** One line of Markdown text as HTML (inline markup only). */
export function inlineHtml(s: string): string {
  let out = ''
  let last = 0
  for (const m of s.matchAll(INLINE)) {
    out += escapeHtml(s.slice(last, m.index))
    if (m[1]) out += `<code>${escapeHtml(m[1].slice(1, -1))}</code>`
    else if (m[2]) out += `<strong>${escapeHtml(m[2].slice(2, -2))}</strong>`
    else if (m[3]) out += `<em>${escapeHtml(m[3].slice(1, -1))}</em>`
    else out += SAFE_HREF.test(m[6]!) ? `<a href="${escapeHtml(m[6]!)}">${escapeHtml(m[5]!)}</a>` : escapeHtml(m[5]!)
    last = m.index! + m[0].length
  }
  return out + escapeHtml(s.slice(last))
}

/** A Markdown text (blocks separated by blank lines) as HTML. */
export function markdownHtml(text: string | undefined): string {
  let out = ''
  for (const block of String(text ?? '').split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((l) => l.trim() !== '')
    if (!lines.length) continue
    if (lines.every((l) => /^\s*[-*] /.test(l))) out += `<ul>${lines.map((l) => `<li>${inlineHtml(l.replace(/^\s*[-*] /, ''))}</li>`).join('')}</ul>`
    else out += `<p>${inlineHtml(lines.join(' '))}</p>`
  }
  return out
}
