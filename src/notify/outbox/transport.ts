import nodemailer from 'nodemailer';
import type { SmtpConfig } from '../../shared/config/mail.js';
import type { NotificationRow } from './tables.js';

// Sending one outbox row over SMTP with nodemailer, every wait bounded: a server that does not
// answer costs the sender loop these timeouts, never a request (nothing in one waits on SMTP).

export interface SmtpTimeouts {
  connectionMs: number;
  greetingMs: number;
  socketMs: number;
}

export const SMTP_TIMEOUTS: SmtpTimeouts = { connectionMs: 10_000, greetingMs: 10_000, socketMs: 30_000 };

export interface MailTransport {
  /** Sends the row's mail; rejects with an error whose message holds no secret. */
  send(row: NotificationRow, at: Date): Promise<void>;
  close(): void;
}

const MAX_ERROR_CHARS = 500;

export function createSmtpTransport(
  smtp: SmtpConfig,
  from: string,
  timeouts: SmtpTimeouts = SMTP_TIMEOUTS,
): MailTransport {
  const password = smtp.password();
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.user !== null && { auth: { user: smtp.user, pass: password ?? '' } }),
    connectionTimeout: timeouts.connectionMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    dnsTimeout: timeouts.connectionMs,
    logger: false,
    debug: false,
  });

  /** The failure as one line for last_error and the log: the server's answer, never the password. */
  function describe(error: unknown): string {
    const { message, code, responseCode } = (error ?? {}) as {
      message?: unknown;
      code?: unknown;
      responseCode?: unknown;
    };
    let text = typeof message === 'string' ? message : String(error);
    if (typeof code === 'string' && !text.includes(code)) text = `${code}: ${text}`;
    if (typeof responseCode === 'number' && !text.includes(String(responseCode))) text = `${responseCode} ${text}`;
    if (password) text = text.split(password).join('[redacted]');
    text = text.replace(/\s+/g, ' ').trim();
    return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
  }

  return {
    async send(row, at) {
      const headers = JSON.parse(row.headers) as Record<string, string>;
      try {
        await transport.sendMail({
          from,
          to: row.address,
          subject: row.subject,
          text: row.text_body,
          html: row.html_body,
          messageId: row.message_id,
          date: at,
          ...(headers['Reply-To'] !== undefined && { replyTo: headers['Reply-To'] }),
          ...(headers['In-Reply-To'] !== undefined && { inReplyTo: headers['In-Reply-To'] }),
          ...(headers.References !== undefined && { references: headers.References }),
          // Vacation responders and the like must not answer a machine's mail.
          headers: { 'Auto-Submitted': 'auto-generated' },
        });
      } catch (error) {
        // No `cause`: nodemailer's error may hold the connection's options, the password among them.
        // eslint-disable-next-line preserve-caught-error -- the message says what went wrong
        throw new Error(describe(error));
      }
    },
    close() {
      transport.close();
    },
  };
}
