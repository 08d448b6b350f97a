import { describe, expect, it } from 'vitest';
import { normalizeEmail } from '../../src/email/normalize.js';
import { classifyWithRules } from '../../src/classify/rules/classify.js';

// Held-out emails, written after the rules and never tuned on one by one: urgency comes from
// what is at stake (something down, broken, blocked or insecure) and from the sender saying it
// can wait, in each of the four languages, not only from the word "urgent" or a close deadline.

type Case = [language: string, subject: string, body: string, priority: 'high' | 'low'];

const CASES: Case[] = [
  ['en', 'Re: prod outage', 'Can you restart the workers? The queue has not moved since 9.', 'high'],
  ['en', 'Checkout is down', 'The payment page is down for every customer. Could you look at it now?', 'high'],
  ['en', 'Build broken on main', 'The build is broken after the last merge. Could you revert it?', 'high'],
  ['en', 'Blocked on credentials', "We're blocked until we get the staging credentials. Can you send them?", 'high'],
  [
    'en',
    'Security issue in the login form',
    'We found a security issue in the login form. Please review the patch.',
    'high',
  ],
  ['en', 'Slides', 'Hi, whenever you get a chance, could you share the slides from Tuesday?', 'low'],
  ['en', 'Small favour', 'No rush at all, but could you send me the link to the style guide?', 'low'],
  ['en', 'Feedback', 'When you have time, please have a look at my draft and tell me what you think.', 'low'],
  ['de', 'Ausfall im Lager', 'Das Lagersystem ist ausgefallen. Kannst du bitte den Dienst neu starten?', 'high'],
  ['de', 'Drucker', 'Der Drucker im 2. Stock funktioniert nicht mehr. Könnten Sie bitte jemanden schicken?', 'high'],
  [
    'de',
    'Sicherheitslücke',
    'Wir haben eine Sicherheitslücke im Portal gefunden. Bitte prüfen Sie den Bericht.',
    'high',
  ],
  ['de', 'Blockiert', 'Unser Team ist blockiert, bis die Freigabe da ist. Kannst du sie bitte erteilen?', 'high'],
  ['de', 'Folien', 'Hallo, keine Eile, aber kannst du mir die Folien von Dienstag schicken?', 'low'],
  ['de', 'Entwurf', 'Wenn du mal Zeit hast, schau dir bitte meinen Entwurf an.', 'low'],
  ['de', 'Kleine Bitte', 'Bei Gelegenheit könnten Sie mir bitte die Adresse der Agentur schicken?', 'low'],
  ['de', 'Fotos', 'Es eilt nicht: Kannst du die Fotos vom Sommerfest hochladen?', 'low'],
  ['fr', 'Panne du serveur', 'Le serveur de fichiers est en panne. Peux-tu le redémarrer ?', 'high'],
  ['fr', 'Site cassé', "La page d'accueil ne fonctionne plus. Pouvez-vous regarder ?", 'high'],
  [
    'fr',
    'Faille de sécurité',
    'Nous avons trouvé une faille de sécurité dans le portail. Merci de vérifier le correctif.',
    'high',
  ],
  ['fr', 'Équipe bloquée', "L'équipe est bloquée sans les accès. Peux-tu nous les envoyer ?", 'high'],
  ['fr', 'Présentation', 'Bonjour, quand tu auras le temps, peux-tu me partager la présentation ?', 'low'],
  ['fr', 'Petite demande', "Rien d'urgent : pourriez-vous m'envoyer le lien vers le guide ?", 'low'],
  ['fr', 'Relecture', 'Pas pressé, mais peux-tu relire mon brouillon ?', 'low'],
  ['fr', 'Photos', 'À ta convenance, peux-tu mettre les photos sur le partage ?', 'low'],
  ['es', 'Caída del servidor', 'El servidor de correo se ha caído. ¿Puedes reiniciarlo?', 'high'],
  ['es', 'La web no funciona', 'La tienda no funciona desde esta mañana. ¿Podrías revisarla?', 'high'],
  [
    'es',
    'Fallo de seguridad',
    'Hemos encontrado un fallo de seguridad en el portal. Por favor, revisa el parche.',
    'high',
  ],
  ['es', 'Equipo bloqueado', 'El equipo está bloqueado sin los permisos. ¿Puedes dárnoslos?', 'high'],
  ['es', 'Diapositivas', 'Hola, cuando puedas, ¿me puedes enviar las diapositivas del martes?', 'low'],
  ['es', 'Pequeño favor', 'Sin prisa: ¿podrías enviarme el enlace a la guía de estilo?', 'low'],
  ['es', 'Borrador', 'No es urgente, pero ¿puedes revisar mi borrador?', 'low'],
  ['es', 'Fotos', 'Cuando tengas un momento, sube las fotos de la fiesta, por favor.', 'low'],
];

const SENT = '2026-03-02T09:00:00Z';

/** A colleague's email to the reader, as Microsoft Graph gives it. */
function email(subject: string, body: string) {
  return normalizeEmail(
    {
      subject,
      body: { contentType: 'text', content: body },
      from: { emailAddress: { name: 'Dana Whitfield', address: 'dana@contoso.com' } },
      toRecipients: [{ emailAddress: { name: 'Robin Vogel', address: 'robin@example.org' } }],
      sentDateTime: SENT,
    },
    6_000,
  );
}

describe('the rules classifier on urgency, held out', () => {
  it.each(CASES)('%s: "%s" (%s) is %s', (_language, subject, body, priority) => {
    const answer = classifyWithRules(email(subject, body));
    expect(answer.needs_action, answer.reasoning).toBe(true);
    expect(answer.priority, answer.reasoning).toBe(priority);
  });

  it('a close deadline still makes a softened request urgent, and "not urgent" is not urgent', () => {
    const due = classifyWithRules(email('Form', 'No rush, but please sign the form by tomorrow.'));
    expect(due.priority).toBe('high');
    const calm = classifyWithRules(email('Question', 'Not urgent: could you send me the agenda?'));
    expect(calm.priority).toBe('low');
  });
});
