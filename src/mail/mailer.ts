import nodemailer from 'nodemailer'
import { redactUrl } from '../redact-url'

/** One message the service sends: the dashboard's sign-in link. */
export interface SignInMail {
  to: string
  /** The absolute sign-in link (holds the one-time token). */
  link: string
  /** Minutes the link stays valid. */
  validMinutes: number
}

export interface Mailer {
  /** `smtp`: a real SMTP client (SMTP_URL); `log`: the development transport, which writes the link to stdout. */
  readonly kind: 'smtp' | 'log'
  /** Where mail goes, fit for a log line (SMTP URL without password). */
  readonly description: string
  sendSignIn(mail: SignInMail): Promise<void>
  close(): void
}

export interface MailerOptions {
  smtpUrl?: string
  mailFrom?: string
  /** Where the log transport writes its line (default: stdout). */
  write?: (line: string) => void
}

const DEFAULT_FROM = 'Mars photos <no-reply@localhost>'

/** The text of the sign-in mail; plain text only, so no mail client renders anything surprising. */
export function signInText(mail: SignInMail): string {
  return [
    'Someone (hopefully you) asked to sign in to the Mars rover photo API dashboard with this address.',
    '',
    `Open this link within ${mail.validMinutes} minutes to sign in. It works once.`,
    '',
    mail.link,
    '',
    'If you did not ask for it, ignore this message: nothing happens without the link.',
  ].join('\n')
}

/**
 * The mail transport SMTP_URL asks for (nodemailer: `smtp://user:pass@host:587`, `smtps://…:465`).
 * Without SMTP_URL the service still starts (the quick start needs no mail server): the link goes
 * to stdout as one JSON line `{"event":"mail.sign-in-link",…}`. That transport is the only place a
 * sign-in token is ever written (decisions.md, Sign-in links in the log), and the server says at
 * start that it is in use.
 */
export function openMailer(opts: MailerOptions): Mailer {
  const from = opts.mailFrom || DEFAULT_FROM
  if (!opts.smtpUrl) {
    const write = opts.write ?? ((line: string) => void process.stdout.write(line + '\n'))
    return {
      kind: 'log',
      description: 'stdout (no SMTP_URL)',
      async sendSignIn(mail) {
        write(JSON.stringify({ t: new Date().toISOString(), level: 'info', event: 'mail.sign-in-link', to: mail.to, link: mail.link, valid_minutes: mail.validMinutes }))
      },
      close() {},
    }
  }
  const transport = nodemailer.createTransport(opts.smtpUrl)
  return {
    kind: 'smtp',
    description: redactUrl(opts.smtpUrl),
    async sendSignIn(mail) {
      // An address object, not a string: nodemailer parses a string `to` as an RFC 5322 address
      // list (`a@x.org,b@y.org`, `x<b@y.org>`); an object is one recipient whatever its text.
      await transport.sendMail({ from, to: { name: '', address: mail.to }, subject: 'Your sign-in link for the Mars rover photo API', text: signInText(mail) })
    },
    close() {
      transport.close()
    },
  }
}
