// The labelled corpus the search tests load on each store: hand-written items in English,
// German, Spanish and French that the queries aim at, and generated ones around them, all
// deterministic. The queries and their expected first results were written before the search.

export type Lang = 'en' | 'de' | 'es' | 'fr';

export interface CorpusItem {
  label: string;
  lang: Lang;
  type: string;
  priority: number;
  description: string;
  payload?: Record<string, unknown>;
  comments?: string[];
  /** The subject of an email that joined the item (an intake_messages row). */
  mail?: string;
  project?: 'Atlas' | 'Borealis';
  /** Submitted by the member mia instead of the admin. */
  by_mia?: boolean;
}

const NEEDLES: CorpusItem[] = [
  {
    label: 'invoice',
    lang: 'en',
    type: 'billing',
    priority: 2,
    description: 'Invoice 7731 from Acme is overdue, please chase the payment',
  },
  {
    label: 'invoice-fix',
    lang: 'en',
    type: 'billing',
    priority: 3,
    description: 'Correct the invoicing address for Beta Corp',
  },
  {
    label: 'refund',
    lang: 'en',
    type: 'refund',
    priority: 2,
    description: 'Refund the customer for the damaged shipment',
  },
  {
    label: 'rechnung',
    lang: 'de',
    type: 'billing',
    priority: 1,
    description: 'Die Rechnung für Müller GmbH ist fehlerhaft',
  },
  {
    label: 'factura',
    lang: 'es',
    type: 'billing',
    priority: 2,
    description: 'La factura del cliente García está pendiente de pago',
  },
  {
    label: 'contrat',
    lang: 'fr',
    type: 'legal',
    priority: 3,
    description: 'Le contrat de maintenance expire en décembre',
  },
  { label: 'rack', lang: 'en', type: 'ops', priority: 1, description: 'The server rack in hall B is overheating' },
  {
    label: 'fire-admin',
    lang: 'en',
    type: 'ops',
    priority: 4,
    description: 'Ask the admin to restart the server before the rack audit',
  },
  {
    label: 'migration-pg',
    lang: 'en',
    type: 'ops',
    priority: 3,
    description: 'Database migration to postgres for the ledger',
  },
  {
    label: 'migration-lite',
    lang: 'en',
    type: 'ops',
    priority: 3,
    description: 'Database migration to sqlite for the kiosk',
  },
  {
    label: 'kubernetes',
    lang: 'en',
    type: 'ops',
    priority: 2,
    description: 'Upgrade the kubernetes cluster to the next minor version',
  },
  {
    label: 'passphrase',
    lang: 'en',
    type: 'security',
    priority: 2,
    description: 'Weekly housekeeping',
    comments: ['The passphrase rotation is stuck on the vault'],
  },
  {
    label: 'tax-mail',
    lang: 'en',
    type: 'finance',
    priority: 3,
    description: 'Reply to the accountant',
    mail: 'Quarterly tax filing reminder',
  },
  {
    label: 'zephyrine',
    lang: 'en',
    type: 'sales',
    priority: 3,
    description: 'Send the renewal offer',
    payload: { customer: 'Zephyrine Holdings', seats: 40 },
  },
  {
    label: 'orchid-desc',
    lang: 'en',
    type: 'facilities',
    priority: 4,
    description: 'Water the orchid in the lobby every Monday',
  },
  {
    label: 'orchid-comment',
    lang: 'en',
    type: 'facilities',
    priority: 4,
    description: 'Plant care for the reception',
    comments: ['Someone said the orchid looks dry'],
  },
  {
    label: 'lieferung',
    lang: 'de',
    type: 'logistics',
    priority: 2,
    description: 'Die Lieferung der Paletten nach Köln verzögert sich',
    project: 'Atlas',
  },
  {
    label: 'envio',
    lang: 'es',
    type: 'logistics',
    priority: 2,
    description: 'El envío de las cajas a Sevilla llegó roto',
    project: 'Atlas',
  },
  {
    label: 'livraison',
    lang: 'fr',
    type: 'logistics',
    priority: 2,
    description: 'La livraison des cartons à Lyon est arrivée en retard',
    project: 'Borealis',
  },
  {
    label: 'html',
    lang: 'en',
    type: 'support',
    priority: 3,
    description: 'The signup form shows <script>alert(1)</script> & breaks the layout',
  },
  {
    label: 'mia-onboarding',
    lang: 'en',
    type: 'hr',
    priority: 3,
    description: 'Onboarding checklist for the new designer',
    by_mia: true,
  },
  {
    label: 'mia-offboarding',
    lang: 'en',
    type: 'hr',
    priority: 5,
    description: 'Offboarding checklist for the contractor',
    by_mia: true,
  },
  {
    label: 'near-or',
    lang: 'en',
    type: 'support',
    priority: 3,
    description: 'Customer asks whether the store is near the station or the harbour',
  },
  {
    label: 'weather-mail',
    lang: 'de',
    type: 'support',
    priority: 4,
    description: 'Kundenanfrage weiterleiten',
    mail: 'Unwetterwarnung für das Lager Hamburg',
  },
];

const POOLS: Record<Lang, string[]> = {
  en: ['meeting', 'report', 'budget', 'laptop', 'printer', 'training', 'travel', 'badge', 'calendar', 'newsletter'],
  de: [
    'Besprechung',
    'Bericht',
    'Urlaub',
    'Drucker',
    'Schulung',
    'Dienstreise',
    'Ausweis',
    'Kalender',
    'Notebook',
    'Rundbrief',
  ],
  es: [
    'reunión',
    'informe',
    'viaje',
    'impresora',
    'formación',
    'presupuesto',
    'calendario',
    'tarjeta',
    'portátil',
    'boletín',
  ],
  fr: [
    'réunion',
    'rapport',
    'voyage',
    'imprimante',
    'formation',
    'dossier',
    'calendrier',
    'badge',
    'ordinateur',
    'lettre',
  ],
};
const TEAMS = ['north', 'south', 'east', 'west'];
const LANGS: Lang[] = ['en', 'de', 'es', 'fr'];
const TYPES = ['ops', 'billing', 'support'];

function filler(i: number): CorpusItem {
  const lang = LANGS[i % 4] as Lang;
  const pool = POOLS[lang];
  const noun = pool[(i * 7) % pool.length] as string;
  const team = TEAMS[Math.floor(i / 4) % TEAMS.length] as string;
  // Four digits, as a group of an id has: ids are indexed whole, so no id matches a reference.
  const ref = 1_000 + i;
  const description = {
    en: `Prepare the ${noun} for the ${team} team (ref ${ref})`,
    de: `Bitte den ${noun} für das Team ${team} vorbereiten (Ref ${ref})`,
    es: `Preparar el ${noun} para el equipo ${team} (ref ${ref})`,
    fr: `Préparer le ${noun} pour l'équipe ${team} (réf ${ref})`,
  }[lang];
  const other = pool[(i * 3 + 1) % pool.length] as string;
  return {
    label: `filler-${i}`,
    lang,
    type: TYPES[i % 3] as string,
    priority: (i % 5) + 1,
    description,
    ...(i % 5 === 0 && {
      comments: [`${{ en: 'See also the', de: 'Siehe auch', es: 'Ver también', fr: 'Voir aussi' }[lang]} ${other}`],
    }),
    ...(i % 6 === 0 && { project: 'Atlas' as const }),
    ...(i % 6 === 3 && { project: 'Borealis' as const }),
  };
}

export const CORPUS: CorpusItem[] = [...NEEDLES, ...Array.from({ length: 200 - NEEDLES.length }, (_, i) => filler(i))];

/** Fillers whose own text names `noun` (description or comment), for the generated queries. */
export function fillersNaming(noun: string, where: (item: CorpusItem) => boolean = () => true): string[] {
  return CORPUS.filter(
    (item) =>
      item.label.startsWith('filler-') &&
      where(item) &&
      [item.description, ...(item.comments ?? [])].some((text) => text.split(/[\s()]+/).includes(noun)),
  ).map((item) => item.label);
}

export interface LabelledQuery {
  q: string;
  /** The labels the first results must be (in any order among themselves). */
  first: string[];
  /** Whether nothing else may match. */
  only?: boolean;
}

/** The queries; `ids` gives each label's item id for the queries that name one. */
export function corpusQueries(ids: Record<string, string>): LabelledQuery[] {
  const id = (label: string) => ids[label] as string;
  return [
    { q: 'invoice 7731', first: ['invoice'], only: true },
    { q: 'invoices', first: ['invoice', 'invoice-fix'], only: true },
    { q: 'Invoice', first: ['invoice', 'invoice-fix'], only: true },
    { q: 'refunds', first: ['refund'], only: true },
    { q: 'rechnungen', first: ['rechnung'], only: true },
    { q: 'muller', first: ['rechnung'], only: true },
    { q: 'Müller', first: ['rechnung'], only: true },
    { q: 'facturas', first: ['factura'], only: true },
    { q: 'garcia pago', first: ['factura'], only: true },
    { q: 'contrats decembre', first: ['contrat'], only: true },
    { q: '"server rack"', first: ['rack'], only: true },
    { q: 'server rack', first: ['rack', 'fire-admin'], only: true },
    { q: 'database migration -sqlite', first: ['migration-pg'], only: true },
    { q: 'migration -postgres -ledger', first: ['migration-lite'], only: true },
    { q: 'kuber*', first: ['kubernetes'], only: true },
    { q: 'passphrase', first: ['passphrase'], only: true },
    { q: 'quarterly tax', first: ['tax-mail'], only: true },
    { q: 'zephyrine', first: ['zephyrine'], only: true },
    { q: 'orchid', first: ['orchid-desc', 'orchid-comment'], only: true },
    { q: 'lieferung', first: ['lieferung'], only: true },
    { q: 'envio sevilla', first: ['envio'], only: true },
    { q: 'livraison lyon', first: ['livraison'], only: true },
    { q: 'unwetterwarnung', first: ['weather-mail'], only: true },
    { q: 'script alert', first: ['html'], only: true },
    { q: 'near OR station', first: ['near-or'], only: true },
    { q: 'checklist by:mia', first: ['mia-onboarding', 'mia-offboarding'], only: true },
    { q: 'checklist priority:5', first: ['mia-offboarding'], only: true },
    { q: 'type:logistics project:Atlas', first: ['lieferung', 'envio'], only: true },
    { q: 'type:logistics project:borealis', first: ['livraison'], only: true },
    { q: 'payment type:billing', first: ['invoice'], only: true },
    { q: id('zephyrine').slice(0, 8), first: ['zephyrine'], only: true },
    { q: id('orchid-desc'), first: ['orchid-desc'], only: true },
    { q: '1042', first: ['filler-42'], only: true },
    { q: 'printer', first: fillersNaming('printer'), only: true },
    { q: 'drucker priority:3', first: fillersNaming('Drucker', (item) => item.priority === 3), only: true },
    {
      q: 'presupuesto type:support',
      first: fillersNaming('presupuesto', (item) => item.type === 'support'),
      only: true,
    },
    { q: 'rapport project:Atlas', first: fillersNaming('rapport', (item) => item.project === 'Atlas'), only: true },
    {
      q: '"team north" laptop',
      first: fillersNaming('laptop', (item) => item.description.toLowerCase().includes('team north')),
      only: true,
    },
    {
      q: 'impresora -north',
      first: fillersNaming('impresora', (item) => !item.description.includes('north')),
      only: true,
    },
    { q: 'kubernetes is:final', first: [], only: true },
  ];
}
