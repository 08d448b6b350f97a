// Raw RFC 5322 messages for the intake tests, written as a mail client would send them.

import { randomBytes } from 'node:crypto';

export interface MailOptions {
  from?: string;
  to?: string;
  subject: string;
  text?: string;
  html?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  headers?: Record<string, string>;
  attachments?: Array<{ name: string; content: string }>;
  date?: Date;
}

export function newMessageId(): string {
  return `<${randomBytes(8).toString('hex')}@mail.example.com>`;
}

/** A message with CRLF line ends; multipart/mixed when it has attachments or both bodies. */
export function mail(options: MailOptions): string {
  const headers = [
    `From: ${options.from ?? 'Dana Swope <dana@contoso.com>'}`,
    `To: ${options.to ?? 'Support <support@example.com>'}`,
    `Subject: ${options.subject}`,
    `Date: ${(options.date ?? new Date()).toUTCString()}`,
    `Message-ID: ${options.messageId ?? newMessageId()}`,
    'MIME-Version: 1.0',
  ];
  if (options.inReplyTo) headers.push(`In-Reply-To: ${options.inReplyTo}`);
  if (options.references?.length) headers.push(`References: ${options.references.join(' ')}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.push(`${name}: ${value}`);
  const text = options.text ?? '';
  const parts: string[] = [];
  if (options.html !== undefined && options.text !== undefined) {
    parts.push(`Content-Type: text/plain; charset=utf-8\r\n\r\n${text}`);
    parts.push(`Content-Type: text/html; charset=utf-8\r\n\r\n${options.html}`);
  }
  const attachments = options.attachments ?? [];
  if (parts.length === 0 && attachments.length === 0) {
    const type = options.html !== undefined ? 'text/html' : 'text/plain';
    headers.push(`Content-Type: ${type}; charset=utf-8`);
    return `${headers.join('\r\n')}\r\n\r\n${(options.html ?? text).replace(/\r?\n/g, '\r\n')}\r\n`;
  }
  if (parts.length === 0)
    parts.push(
      `Content-Type: ${options.html !== undefined ? 'text/html' : 'text/plain'}; charset=utf-8\r\n\r\n${options.html ?? text}`,
    );
  for (const attachment of attachments) {
    parts.push(
      `Content-Type: application/octet-stream; name="${attachment.name}"\r\nContent-Disposition: attachment; filename="${attachment.name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from(attachment.content).toString('base64')}`,
    );
  }
  const boundary = `b-${randomBytes(6).toString('hex')}`;
  headers.push(`Content-Type: multipart/mixed; boundary="${boundary}"`);
  return `${headers.join('\r\n')}\r\n\r\n${parts.map((part) => `--${boundary}\r\n${part.replace(/\r?\n/g, '\r\n')}\r\n`).join('')}--${boundary}--\r\n`;
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
