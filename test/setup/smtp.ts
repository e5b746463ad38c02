import { SMTPServer } from 'smtp-server'

/** One message the test SMTP server accepted. */
export interface ReceivedMail {
  from: string
  to: string[]
  /** The raw message (headers and body) as sent. */
  raw: string
  /** The text body, transfer-decoded (quoted-printable or base64). */
  text: string
}

export interface TestSmtp {
  /** `smtp://127.0.0.1:<port>` for SMTP_URL (no TLS, no auth: loopback only). */
  url: string
  messages: ReceivedMail[]
  /** The next message to `to` (already received or arriving within `ms`). */
  nextTo(to: string, ms?: number): Promise<ReceivedMail>
  close(): Promise<void>
}

/** RFC 2045 §6.7 quoted-printable and §6.8 base64 bodies, the two nodemailer uses for text. */
function decodeBody(raw: string): string {
  const split = raw.indexOf('\r\n\r\n')
  const head = raw.slice(0, split)
  const body = raw.slice(split + 4)
  const cte = /^content-transfer-encoding:\s*(\S+)/im.exec(head)?.[1]?.toLowerCase()
  if (cte === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    return Buffer.from(bytes, 'latin1').toString('utf8')
  }
  if (cte === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
  return body
}

/** A real SMTP server (the `smtp-server` package) on a free loopback port, keeping every message. */
export async function startTestSmtp(): Promise<TestSmtp> {
  const messages: ReceivedMail[] = []
  const waiters: Array<{ to: string; seen: number; resolve: (m: ReceivedMail) => void }> = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          text: decodeBody(raw),
        }
        messages.push(mail)
        for (const w of [...waiters]) {
          if (mail.to.includes(w.to)) {
            waiters.splice(waiters.indexOf(w), 1)
            w.resolve(mail)
          }
        }
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as { port: number }).port
  const taken = new Map<string, number>()
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    nextTo(to, ms = 5000) {
      const seen = taken.get(to) ?? 0
      const already = messages.filter((m) => m.to.includes(to))
      taken.set(to, seen + 1)
      if (already.length > seen) return Promise.resolve(already[seen]!)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mail to ${to} within ${ms} ms`)), ms)
        waiters.push({ to, seen, resolve: (m) => (clearTimeout(timer), resolve(m)) })
      })
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The sign-in link in a message's text. */
export function linkIn(mail: ReceivedMail): string {
  const m = /https?:\/\/\S+\/dashboard\/link\?token=[A-Za-z0-9_-]+/.exec(mail.text)
  if (!m) throw new Error(`no sign-in link in the message:\n${mail.text}`)
  return m[0]
}
