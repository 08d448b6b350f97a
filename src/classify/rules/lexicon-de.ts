// German. Regular-expression sources, matched case-insensitively between word edges.
// Business German borrows English ("Meeting", "Call", "Webinar", "Sale"), so those are here too.

import type { Lexicon } from './lexicon-types.js';

const MONTH = '(?:januar|jänner|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember)';
const WEEKDAY = '(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)';
const DATE = '\\d{1,2}\\.\\s?\\d{1,2}\\.(?:\\d{2,4})?';

export const GERMAN: Lexicon = {
  language: 'de',
  stopwords: [
    'der', 'die', 'das', 'und', 'ist', 'nicht', 'sie', 'ich', 'wir', 'ihr', 'ihre', 'ihnen', 'mit', 'für', 'auf', 'den', 'dem',
    'des', 'ein', 'eine', 'einen', 'einem', 'einer', 'zu', 'von', 'bei', 'wird', 'wurde', 'sind', 'haben', 'hat', 'bitte',
    'danke', 'auch', 'noch', 'oder', 'aber', 'wie', 'nur', 'uns', 'unser', 'unsere', 'dass', 'mir', 'dir', 'sich', 'werden',
    'können', 'kann', 'zum', 'zur', 'vom', 'über', 'nach', 'gerne', 'viele', 'grüße', 'hallo', 'liebe', 'sehr', 'geehrte',
    'geehrter', 'ab', 'im', 'euch', 'du', 'dich', 'ihren', 'ihrem', 'unseren', 'diese', 'dieser', 'heute', 'morgen',
  ],
  letters: 'äöüß',
  phrases: {
    urgent_wording: ['dringend', 'eilig', 'sofort', 'umgehend', 'schnellstmöglich', 'so schnell wie möglich', 'asap', 'zeitkritisch', 'wichtig:'],
    impact_wording: [
      'ausfall', 'ausgefallen', 'störung', '(?:ist|sind) down', 'funktionier(?:t|en) nicht(?: mehr)?', 'geht nicht mehr', 'kaputt', 'defekt',
      'blockiert', 'abgestürzt', 'stürzt ab', 'steht still', 'sicherheitslücke', 'sicherheitsvorfall', 'sicherheitsproblem', 'datenleck', 'kompromittiert',
    ],
    softener_wording: [
      'keine eile', 'eilt nicht', 'nicht dringend', 'ohne eile', 'bei gelegenheit', 'hat zeit', 'kein stress', 'wann immer (?:du|sie|es) (?:zeit|passt)',
      'wenn (?:du|sie) (?:mal )?(?:zeit|einen moment) (?:hast|haben|findest|finden)', 'wenn es (?:dir|ihnen) passt',
    ],
    invoice: ['rechnung', 'rechnungsnummer', 'rechnungsbetrag', 'abrechnung steht', 'kontoauszug'],
    payment_due: [
      'zahlungserinnerung', 'mahnung', 'fällig(?:keit)?', 'offene(?:r|n)? (?:betrag|rechnung|posten)',
      'zahlbar bis', 'zahlungsziel',
    ],
    receipt: ['zahlungsbestätigung', 'zahlung (?:erhalten|eingegangen)', 'quittung', 'beleg über', 'vielen dank für ihre (?:zahlung|bestellung|buchung)'],
    order_or_shipping: [
      'bestellung', 'bestellnummer', 'auftragsnummer', '(?:wurde|wird) versandt', 'versendet', 'paket ist unterwegs', 'sendungsnummer',
      'sendung verfolgen', 'zustellung', 'lieferung', 'buchungsbestätigung', 'reservierungsbestätigung', 'online-ticket', 'reiseplan',
    ],
    subscription_or_trial: [
      'abonnement (?:wird|verlängert)', 'abo (?:wird|verlängert)', 'verlängert sich (?:automatisch)?', 'testphase (?:endet|läuft ab)',
      'probezeitraum', 'kündigungsfrist', 'vertragsverlängerung',
    ],
    meeting_invitation: [
      'hat sie zu (?:einer|einem) (?:besprechung|meeting|termin|call) eingeladen', 'einladung:', 'einladung zu(?:r|m)? (?:\\S+ ){0,2}(?:besprechung|meeting|termin|call|workshop|kick-?off)',
      'teams-besprechung', 'annehmen\\s*\\|?\\s*(?:mit vorbehalt|vorläufig)\\s*\\|?\\s*ablehnen', 'besprechungsanfrage',
      'termin(?:einladung|anfrage)', 'jour fixe', '(?:besprechung|meeting|termin|call|jour fixe)(?: \\S+){0,6} (?:wird )?(?:verschoben|verlegt|abgesagt)',
      'verschoben:', 'neuer termin', 'zoom\\.us/j', 'teams\\.microsoft\\.com/l/meetup', 'meet\\.google\\.com',
    ],
    meeting_scheduling: [
      '(?:hätten|haben) sie(?: \\S+){0,4} (?:zeit|minuten)', '(?:hast|hättest) du(?: \\S+){0,4} (?:zeit|minuten)',
      'termin (?:vereinbaren|finden|abstimmen|ausmachen)', 'einen termin', 'kurze[nm]? (?:call|telefonat|austausch|abstimmung)',
      '(?:würde|würden) (?:mir|uns) (?:\\S+ ){0,4}passen', 'mit ihnen abstimmen', 'sind sie (?:\\S+ ){0,2}verfügbar',
    ],
    unsubscribe_link: [
      'abmelden', 'abbestellen', 'austragen', 'sie erhalten diese(?:n)? (?:e-mail|newsletter|nachricht)', 'keine (?:angebote|e-mails|newsletter|nachrichten) mehr',
      'einstellungen verwalten', 'newsletter abbestellen',
    ],
    automated_wording: [
      '(?:diese|die) (?:e-mail|nachricht) wurde automatisch', 'automatisch (?:erstellt|generiert|versandt|verschickt)', 'nicht auf diese (?:e-mail|nachricht)',
      'antworten sie nicht', 'benachrichtigungseinstellungen', 'benachrichtigungen verwalten', '(?:pipeline|build|job)(?: #?\\d+)? (?:ist )?fehlgeschlagen',
      'fehlgeschlagene[rn]? (?:job|build|test)', 'hat sie(?: \\S+){0,5} erwähnt', 'hat (?:sie|dich) (?:\\S+ ){0,3}zugewiesen', 'hat (?:\\S+ ){0,3}kommentiert',
      'sicherheitswarnung', 'sicherheitshinweis', 'neue anmeldung', '(?:kennwort|passwort) (?:wurde )?(?:kürzlich )?geändert', 'bestätigungscode',
      'einmalcode', 'elektronischen postfach', 'neues dokument',
    ],
    promotional_wording: [
      '\\d{1,2}\\s?% rabatt', 'rabatt', 'rabattcode', 'gutschein(?:code)?', 'sonderangebot', 'angebot gilt', 'nur (?:noch )?bis', 'jetzt (?:shoppen|kaufen|bestellen|zugreifen|testen)',
      'kostenlose[nr]? versand', 'versandkostenfrei', 'sale', 'schnäppchen', 'sparen sie', 'frühbucher(?:-ticket|rabatt)?', 'gratis',
      'black friday', 'sichern sie sich',
    ],
    event_promotion: [
      '(?:live-)?webinar', 'online-seminar', 'jetzt (?:kostenlos )?anmelden', 'kostenlos anmelden', 'teilnehmerzahl (?:ist )?begrenzt', 'begrenzte plätze',
      'plätze sind begrenzt', 'ticket sichern', 'tickets?', 'aussteller', 'vorträge(?:n)?', 'fachforum', 'messe', 'konferenz', 'kongress', 'live-demo',
      'aufzeichnung', 'fragerunde',
    ],
    newsletter_wording: [
      'newsletter', 'in dieser ausgabe', 'themen dieser ausgabe', '\\p{L}{0,20}ausgabe', 'weiterlesen', 'mehr lesen', 'im browser (?:ansehen|anzeigen)',
      'viel spaß beim lesen', 'monatsrückblick', 'wochenrückblick', 'mitarbeiterzeitung', 'ihre redaktion', 'neues aus',
      'lesen sie (?:unter anderem|auf unserer website)',
    ],
    spam_wording: [
      'sie haben gewonnen', 'gewinner', 'gewinnspiel', 'erbschaft', 'nachlass', 'begünstigte[rn]?', 'millionen (?:euro|dollar)', 'vertraulich',
      'ohne risiko', 'risikofrei', 'geld verdienen', 'bitcoin', 'krypto', 'bearbeitungsgebühr', 'western union',
      'lieber freund',
    ],
    account_threat: [
      '(?:konto|zugang|postfach|online-banking)(?: \\S+){0,3} (?:wurde |wird )?(?:vorübergehend |dauerhaft )?(?:gesperrt|deaktiviert|gelöscht|eingeschränkt)',
      'dauerhaft (?:gesperrt|deaktiviert|gelöscht)', 'innerhalb von \\d+ stunden', 'speicherlimit', 'postfach (?:ist )?(?:fast )?voll',
      'aus sicherheitsgründen', 'andernfalls wird', 'ungewöhnliche aktivität',
    ],
    fyi_wording: [
      'zur info', 'zur information', 'zu ihrer information', 'zur kenntnis(?:nahme)?', 'fyi', 'es ist nichts (?:weiter )?zu tun', 'kein handlungsbedarf',
      'nur kurz zum stand', 'zum stand', 'kurzes update', 'auf dem laufenden', 'ich melde mich, falls', 'nur zur info',
    ],
    welcome_announcement: [
      'heißen sie (?:\\S+ ){0,2}(?:herzlich )?willkommen', 'herzlich willkommen', 'willkommen im team', 'freue mich,? (?:ihnen|euch) mitteilen',
      'freuen uns,? (?:ihnen|euch) mitteilen', 'verstärkt (?:seit|ab) (?:\\S+ ){0,3}(?:unser|das)', 'verstärkt unser',
    ],
  },
  requests: [
    'bitte', 'könnten sie', 'können sie', 'könntest du', 'kannst du', 'würden sie', 'würdest du', 'wären sie so (?:nett|freundlich)',
    '(?:ich|wir) bitte[n]? (?:sie|um)', '(?:ich|wir) brauche[n]? (?:ihre|deine|noch)', '(?:ich|wir) benötige[n]? (?:ihre|deine|noch)',
    'gib mir bescheid', 'geben sie (?:mir|uns) bescheid', 'sag (?:mir )?(?:bitte )?bescheid', 'lass(?:t)? (?:mich|uns) wissen',
    'um rückmeldung', 'freigeben\\?', 'ich warte auf (?:ihre|deine)',
  ],
  not_requests: [
    'antworten sie nicht', 'nicht (?:auf diese (?:e-mail|nachricht) )?antworten', 'heißen sie (?:\\S+ ){0,2}(?:herzlich )?willkommen', 'bitte beachten sie',
    'bitte schön',
  ],
  reader: ['sie', 'ihnen', 'ihr', 'ihre', 'du', 'dir', 'dich', 'dein', 'deine', 'euch'],
  credentials: {
    login: ['anmelden', 'melden sie sich(?: \\S+){0,8} an', 'einloggen', 'login', 'log-?in', 'anmeldung'],
    secret: ['passwort', 'kennwort', 'zugangsdaten', 'anmeldedaten', 'pin', 'tan', 'kartendaten', 'bankdaten'],
    ask: ['bestätigen', 'bestätigen sie', 'verifizieren', 'geben sie(?: \\S+){0,4} ein', 'eingeben', 'aktualisieren', 'freischalten', 'entsperren', 'aufzuheben'],
  },
  deadline: {
    markers: ['bis(?: spätestens)?(?: zum| am)?', 'spätestens(?: am| bis)?', 'frist(?: ist| endet)?', 'fällig(?:keit)?(?: am)?', 'zahlbar bis', 'noch vor'],
    dates: [
      'heute', 'morgen', 'übermorgen', `(?:diesen |nächsten |kommenden )?${WEEKDAY}(?:,? (?:den )?(?:${DATE}|\\d{1,2}\\. ${MONTH}(?: \\d{4})?))?`, 'ende (?:der|dieser|nächster) woche', '(?:monats|wochen)ende',
      'nächste woche', 'diese woche', 'mittag', DATE, `\\d{1,2}\\. ${MONTH}(?: \\d{4})?`, '\\d{1,2}(?::\\d{2})? uhr', '\\d+ (?:tagen?|stunden|wochen)', 'ende (?:des|dieses) monats',
    ],
    times: ['(?:um )?\\d{1,2}(?:[:.]\\d{2})? uhr', '(?:zum |bis )?mittag'],
    bare: ['heute(?: noch| abend)?', 'übermorgen', 'bis morgen'],
  },
  approvals: [
    '(?:bitte|könnten sie|können sie|kannst du|könntest du|würden sie|würdest du)(?: \\S+){0,8}? (?:freigeben|freigabe|genehmigen|abzeichnen|unterschreiben|unterzeichnen|bezahlen|überweisen|begleichen)',
    'bitte (?:gib|geben sie)(?: \\S+){0,8}? frei', 'bitte (?:überweisen|begleichen|bezahlen)', 'zur (?:freigabe|unterschrift|genehmigung)',
    '(?:brauche|benötige|warte auf) (?:ihre|deine) (?:freigabe|unterschrift|genehmigung)',
  ],
  overdue: ['überfällig', 'in verzug', 'war (?:am \\S+ )?fällig', 'noch (?:offen|nicht bezahlt|nicht beglichen)'],
};
