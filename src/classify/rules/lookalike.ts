// Look-alike domains: hosts that borrow a brand phishers imitate without belonging to it ("micros0ft-support.com",
// "paypal.com.account-review.net"). Alone it is no proof of phishing: scoring also wants a request for
// credentials or a threat to the account, since a shop may well name its carrier.

interface Brand {
  /** As it appears in a host once digits that pass for letters are read as letters. */
  name: string;
  /** Registrable domains the brand owns. */
  domains: readonly string[];
  /** Top-level domains under which `<name>-<anything>` is the brand's own (regional banks). */
  regional?: readonly string[];
}

const BRANDS: readonly Brand[] = [
  { name: 'paypal', domains: ['paypal.com', 'paypal.de', 'paypal.es', 'paypal.fr', 'paypal.me'] },
  {
    name: 'microsoft',
    domains: [
      'microsoft.com',
      'live.com',
      'office.com',
      'outlook.com',
      'microsoftonline.com',
      'office365.com',
      'sharepoint.com',
    ],
  },
  { name: 'outlook', domains: ['outlook.com', 'outlook.de', 'outlook.es', 'outlook.fr', 'live.com', 'microsoft.com'] },
  { name: 'office365', domains: ['office365.com', 'office.com', 'microsoft.com'] },
  { name: 'onedrive', domains: ['onedrive.com', 'live.com', 'microsoft.com'] },
  { name: 'sharepoint', domains: ['sharepoint.com', 'microsoft.com'] },
  { name: 'apple', domains: ['apple.com', 'icloud.com'] },
  { name: 'icloud', domains: ['icloud.com', 'apple.com'] },
  {
    name: 'google',
    domains: [
      'google.com',
      'gmail.com',
      'google.de',
      'google.es',
      'google.fr',
      'youtube.com',
      'googlemail.com',
      'googleusercontent.com',
      'googlegroups.com',
    ],
  },
  { name: 'gmail', domains: ['gmail.com', 'google.com'] },
  {
    name: 'amazon',
    domains: ['amazon.com', 'amazon.de', 'amazon.es', 'amazon.fr', 'amazon.co.uk', 'amazonaws.com', 'amazonses.com'],
  },
  { name: 'netflix', domains: ['netflix.com'] },
  { name: 'dhl', domains: ['dhl.com', 'dhl.de', 'dhl.es', 'dhl.fr'] },
  { name: 'fedex', domains: ['fedex.com'] },
  { name: 'docusign', domains: ['docusign.com', 'docusign.net'] },
  { name: 'dropbox', domains: ['dropbox.com', 'dropboxmail.com'] },
  { name: 'linkedin', domains: ['linkedin.com'] },
  { name: 'facebook', domains: ['facebook.com', 'facebookmail.com', 'meta.com'] },
  { name: 'instagram', domains: ['instagram.com'] },
  { name: 'whatsapp', domains: ['whatsapp.com'] },
  { name: 'wetransfer', domains: ['wetransfer.com'] },
  { name: 'coinbase', domains: ['coinbase.com'] },
  { name: 'binance', domains: ['binance.com'] },
  { name: 'sparkasse', domains: ['sparkasse.de'], regional: ['de'] },
  { name: 'volksbank', domains: ['volksbank.de'], regional: ['de'] },
  { name: 'postbank', domains: ['postbank.de'] },
  { name: 'commerzbank', domains: ['commerzbank.de', 'commerzbank.com'] },
  { name: 'deutschebank', domains: ['deutsche-bank.de', 'db.com'] },
  { name: 'santander', domains: ['santander.com', 'santander.de', 'bancosantander.es', 'santander.es'] },
  { name: 'bbva', domains: ['bbva.es', 'bbva.com'] },
  { name: 'caixabank', domains: ['caixabank.es', 'caixabank.com'] },
  { name: 'correos', domains: ['correos.es'] },
  { name: 'laposte', domains: ['laposte.fr', 'laposte.net'] },
  { name: 'labanquepostale', domains: ['labanquepostale.fr'] },
  { name: 'ameli', domains: ['ameli.fr'] },
  { name: 'impots', domains: ['impots.gouv.fr'] },
  { name: 'creditagricole', domains: ['credit-agricole.fr', 'credit-agricole.com'] },
  { name: 'bnpparibas', domains: ['bnpparibas.com', 'bnpparibas.fr', 'mabanque.bnpparibas'] },
  { name: 'societegenerale', domains: ['societegenerale.fr', 'societegenerale.com'] },
];

/** Second-level labels under which the registrable domain takes three labels (co.uk, gouv.fr). */
const SECOND_LEVEL = new Set(['co', 'com', 'org', 'net', 'gov', 'gouv', 'ac', 'edu', 'gob']);
/** Brands this short are matched only as a whole word of the host, never inside one. */
const WHOLE_WORD_BELOW = 6;
const OFFICIAL = new Set(BRANDS.flatMap((brand) => brand.domains));

/** Hosts of links written out in the text: `https://host/…` and `www.host`. */
const URL_HOST = /\b(?:https?:\/\/|www\.)([a-z0-9][a-z0-9.-]{0,252})/gi;

export function hostsInText(text: string, limit = 50): string[] {
  const hosts = new Set<string>();
  for (const match of text.matchAll(URL_HOST)) {
    const prefix = match[0].toLowerCase().startsWith('www.') ? 'www.' : '';
    hosts.add(`${prefix}${match[1]!}`.toLowerCase().replace(/\.+$/, ''));
    if (hosts.size >= limit) break;
  }
  return [...hosts];
}

export function registrableDomain(host: string): string {
  const labels = host.toLowerCase().split('.').filter(Boolean);
  const take = labels.length >= 3 && SECOND_LEVEL.has(labels.at(-2)!) ? 3 : 2;
  return labels.slice(-take).join('.');
}

/** The brand a host imitates ("netfl1x-pagos.com"), or null; a brand's own domains and subdomains never do. */
export function imitatedBrand(host: string): string | null {
  const registrable = registrableDomain(host);
  if (OFFICIAL.has(registrable)) return null;
  const labels = host.toLowerCase().split('.').filter(Boolean);
  // Everything but the top-level domain: "paypal.com.account-review" in "paypal.com.account-review.net".
  const name = labels.slice(0, -1).join('.');
  const words = name.split(/[.-]+/).filter(Boolean).map(deconfuse);
  const readings = readAsLetters(name);
  for (const brand of BRANDS) {
    if (isRegionalOwn(brand, registrable)) continue;
    if (brand.name.length < WHOLE_WORD_BELOW) {
      if (words.includes(brand.name)) return brand.name;
      continue;
    }
    if (readings.some((reading) => reading.includes(brand.name))) return brand.name;
    // One letter off: "paypai", "arnazon" once "rn" is read as "m", "netfl1x".
    if (words.some((word) => word.length >= WHOLE_WORD_BELOW - 1 && editDistanceAtMostOne(word, brand.name)))
      return brand.name;
  }
  return null;
}

function isRegionalOwn(brand: Brand, registrable: string): boolean {
  return (
    brand.regional !== undefined &&
    brand.regional.includes(registrable.split('.').at(-1)!) &&
    registrable.startsWith(`${brand.name}-`)
  );
}

/** Whether the brand owns the domain: one of its own, a subdomain of one, or a regional one. */
export function ownsDomain(brandName: string, host: string): boolean {
  const brand = BRANDS.find((candidate) => candidate.name === brandName);
  if (!brand) return false;
  const registrable = registrableDomain(host);
  return brand.domains.includes(registrable) || isRegionalOwn(brand, registrable);
}

/** The brand a display name claims to be ("PayPal", "La Banque Postale", "Soporte Netflix"). */
export function brandInName(name: string): string | null {
  const words = name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const joined = words.join('');
  for (const brand of BRANDS) {
    if (brand.name.length < WHOLE_WORD_BELOW ? words.includes(brand.name) : joined.includes(brand.name))
      return brand.name;
  }
  return null;
}

/** The host's name without separators, with digits read as the letters they pass for. */
function readAsLetters(name: string): string[] {
  const flat = name.replace(/[.-]+/g, '');
  // "1" passes for both "l" and "i": read it both ways.
  return [deconfuse(flat), deconfuse(flat.replaceAll('1', 'i'))];
}

function deconfuse(word: string): string {
  return word
    .toLowerCase()
    .replaceAll('rn', 'm')
    .replaceAll('vv', 'w')
    .replace(/[013457]/g, (digit) => ({ '0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't' })[digit]!);
}

function editDistanceAtMostOne(a: string, b: string): boolean {
  if (a === b) return false;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i += 1;
      j += 1;
      continue;
    }
    edits += 1;
    if (edits > 1) return false;
    if (a.length > b.length) i += 1;
    else if (b.length > a.length) j += 1;
    else {
      i += 1;
      j += 1;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}
