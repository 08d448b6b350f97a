// Details the offline classifier can read off an email without understanding it: people and
// organizations from the addresses, mentions and signature; file names from text. Deadlines
// are found with the signals, in the email's own language (signals.ts).

import type { Email, Mailbox } from '../../email/index.js';
import { isMachineAddress } from './envelope.js';

const FREE_MAIL = new Set([
  'gmail',
  'googlemail',
  'outlook',
  'hotmail',
  'live',
  'msn',
  'yahoo',
  'icloud',
  'me',
  'mac',
  'aol',
  'proton',
  'protonmail',
  'pm',
  'gmx',
  'web',
  'mail',
  'yandex',
  'zoho',
  'fastmail',
  'example',
]);
/** Labels that say nothing about who the organization is. */
const GENERIC_LABELS = new Set([
  'com',
  'org',
  'net',
  'edu',
  'gov',
  'io',
  'co',
  'ai',
  'app',
  'dev',
  'info',
  'biz',
  'us',
  'uk',
  'de',
  'fr',
  'nl',
  'eu',
  'ca',
  'au',
  'onmicrosoft',
  'mail',
  'email',
  'mx',
  'smtp',
  'corp',
  'prod',
  'ac',
]);
const ORG_SUFFIX =
  /\b((?:[A-Z][\w&'-]*\.? ){0,3}[A-Z][\w&'-]*),? (Inc|LLC|Ltd|Limited|Corp|Corporation|GmbH|AG|PLC|Co|SAS|BV|LLP)\b\.?/g;
const TEAM_LINE =
  /^(?:the )?([A-Z][\w&'-]*(?: [A-Z][\w&'-]*){0,3}) (?:team|department|support|billing|university|foundation|group)$/i;
const NAME_LINE = /^\p{Lu}[\p{Ll}'’-]+(?: \p{Lu}\.)?(?: \p{Lu}[\p{Ll}'’-]+){0,2}$/u;
const MENTION = /@(\p{Lu}[\p{Ll}'’-]+(?: \p{Lu}[\p{Ll}'’-]+){0,2})/gu;
const FILE_NAME =
  /\b[\w][\w .()-]{0,80}?\.(?:pdf|docx?|xlsx?|pptx?|csv|zip|txt|rtf|odt|ods|png|jpe?g|gif|ics|eml|msg|json|xml)\b/gi;
const SIGN_OFF =
  /^(?:thanks|thank you|cheers|best|regards|kind regards|best regards|sincerely|warm regards|viele grüße|mit freundlichen grüßen|freundliche grüße|beste grüße|gruß|danke|saludos|un saludo|atentamente|gracias|cordialement|bien cordialement|merci|bonne journée)(?![\p{L}])/iu;
const LIST_MAX = 10;

/** People among the addresses: machines and mailing lists are not people. */
export function participants(email: Email): Mailbox[] {
  const all = [email.from, ...email.to, ...email.cc, ...email.reply_to].filter(
    (mailbox): mailbox is Mailbox => mailbox !== null,
  );
  return all.filter((mailbox) => !isMachineAddress(mailbox.address));
}

export function extractPeople(email: Email): string[] {
  const people = new Set<string>();
  for (const mailbox of participants(email)) {
    const name = mailbox.name && !mailbox.name.includes('@') ? mailbox.name : null;
    if (name && looksLikePersonName(name)) people.add(name);
  }
  for (const match of email.body.text.matchAll(MENTION)) people.add(match[1]!);
  for (const line of (email.body.signature ?? '').split('\n').slice(0, 4)) {
    const trimmed = line.trim().replace(/[,.]$/, '');
    if (NAME_LINE.test(trimmed) && !SIGN_OFF.test(trimmed)) {
      // "Dana" signing a mail from "Dana Swope" is the same person.
      if (![...people].some((person) => person.split(' ').includes(trimmed))) people.add(trimmed);
      break;
    }
  }
  return [...people].slice(0, LIST_MAX);
}

export function extractOrganizations(email: Email): string[] {
  const organizations = new Set<string>();
  // A store or a newsletter signs with its display name; that name is the organization.
  if (email.from?.name && isMachineAddress(email.from.address)) organizations.add(email.from.name);
  // The To line is mostly the reader's own organization, which says nothing about the mail.
  for (const mailbox of [email.from, ...email.cc]) {
    const organization = organizationOfAddress(mailbox?.address ?? null);
    if (organization) organizations.add(organization);
  }
  const text = `${email.body.text}\n${email.body.signature ?? ''}`;
  for (const match of text.matchAll(ORG_SUFFIX)) organizations.add(`${match[1]} ${match[2]}`);
  for (const line of text.split('\n')) {
    const team = TEAM_LINE.exec(line.trim());
    if (team && !/^(?:the|our|your|this)$/i.test(team[1]!)) organizations.add(line.trim().replace(/^the /i, ''));
  }
  return [...organizations].slice(0, LIST_MAX);
}

/** "adelev@contoso.OnMicrosoft.com" → "Contoso"; free-mail domains name no organization. */
export function organizationOfAddress(address: string | null): string | null {
  const domain = address?.split('@')[1]?.toLowerCase();
  if (!domain) return null;
  const labels = domain.split('.').filter((label) => label && !GENERIC_LABELS.has(label));
  const label = labels.at(-1);
  if (!label || FREE_MAIL.has(label)) return null;
  return label.charAt(0).toUpperCase() + label.slice(1);
}

export function extractAttachments(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(FILE_NAME)) {
    // Keep only the file name itself, not the words before it on the line.
    const name = match[0]
      .split(/\s(?=\S+\.\w+$)/)
      .at(-1)!
      .trim()
      .replace(/^[(["'<]+/, '');
    if (!/^https?:/i.test(name)) names.add(name);
  }
  return [...names].slice(0, LIST_MAX);
}

function looksLikePersonName(name: string): boolean {
  return (
    /\p{L}/u.test(name) &&
    !/\b(?:team|support|no-?reply|notifications?|billing|news|info|all|staff|everyone|group|board|store|shop|services?|company|office|department|weekly|daily|inc|llc|ltd)\b/i.test(
      name,
    )
  );
}
