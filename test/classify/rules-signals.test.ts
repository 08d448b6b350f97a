import { describe, expect, it } from 'vitest';
import { normalizeEmail } from '../../src/email/normalize.js';
import { classifyWithRules } from '../../src/classify/rules/classify.js';

// Emails written for each signal the offline classifier looks for, in every language
// it reads, and the honest mail each signal must leave alone.

function email(from: string | null, subject: string, body: string, extra: { reply_to?: string } = {}) {
  const mailbox = (text: string) => {
    const match = /^(.*?)\s*<(.+)>$/.exec(text);
    return { emailAddress: match ? { name: match[1], address: match[2] } : { address: text } };
  };
  if (from === null) return normalizeEmail({ email_data: { subject, body } }, 6_000);
  return normalizeEmail(
    {
      subject,
      body: { contentType: 'text', content: body },
      from: mailbox(from),
      toRecipients: [mailbox('Robin Vogel <robin@example.org>')],
      replyTo: extra.reply_to ? [mailbox(extra.reply_to)] : [],
    },
    6_000,
  );
}

describe('requests in four languages', () => {
  it.each([
    [
      'English',
      'Ana Ruiz <ana@fabrikam.example>',
      'NDA',
      'Hi Robin,\n\nCould you send me the signed NDA by Wednesday? Legal is waiting for it.\n\nAna',
      '2026-11-25',
    ],
    [
      'English',
      'Ana Ruiz <ana@fabrikam.example>',
      'Draft',
      'Hi Robin,\n\nPlease review the attached draft and share your comments before the call.\n\nAna',
      null,
    ],
    [
      'German',
      'Jörg Weiß <joerg.weiss@beispiel.example>',
      'Vereinbarung',
      'Hallo Herr Vogel,\n\nbitte schicken Sie mir die unterschriebene Vereinbarung bis Mittwoch zurück.\n\nViele Grüße\nJörg Weiß',
      '2026-11-25',
    ],
    [
      'German',
      'Jörg Weiß <joerg.weiss@beispiel.example>',
      'Liefertermin',
      'Guten Tag,\n\nkönnten Sie mir kurz sagen, ob der Liefertermin für die Pumpen steht? Der Kunde fragt nach.\n\nGruß\nJörg',
      null,
    ],
    [
      'German',
      'Mia <mia@beispiel.example>',
      'Folien',
      'Hi Robin,\n\nkannst du mir die Folien von gestern schicken? Ich finde sie nicht im Ordner.\n\nDanke!\nMia',
      null,
    ],
    [
      'Spanish',
      'Pilar Gómez <pilar@ejemplo.example>',
      'Informe',
      'Hola Robin:\n\n¿Puedes enviarme el informe de ventas antes del viernes? Lo necesito para la junta.\n\nGracias,\nPilar',
      '2026-11-27',
    ],
    [
      'Spanish',
      'Pilar Gómez <pilar@ejemplo.example>',
      'Borrador',
      'Hola:\n\nPor favor, revisa el borrador del folleto y corrige las erratas que veas.\n\nUn saludo,\nPilar',
      null,
    ],
    [
      'Spanish',
      'Tomás Vidal <tomas@ejemplo.example>',
      'Entrega',
      'Estimado Sr. Vogel:\n\n¿Podría confirmarme la fecha de entrega de las piezas? Quedo a la espera de su respuesta.\n\nAtentamente,\nTomás Vidal',
      null,
    ],
    [
      'French',
      'Luc Perrin <luc.perrin@exemple.example>',
      'Contrat',
      'Bonjour,\n\nPourriez-vous me renvoyer le contrat signé avant mercredi ? Le client attend notre retour.\n\nCordialement,\nLuc Perrin',
      '2026-11-25',
    ],
    [
      'French',
      'Luc Perrin <luc.perrin@exemple.example>',
      'Note de frais',
      "Bonjour Robin,\n\nMerci de valider la note de frais de la mission à Nantes dans l'outil.\n\nLuc",
      null,
    ],
    [
      'French',
      'Zoé <zoe@exemple.example>',
      'Chiffres',
      "Salut Robin,\n\nPeux-tu m'envoyer les chiffres de septembre ? J'en ai besoin pour le point de demain.\n\nZoé",
      null,
    ],
  ])('%s: %s asks "%s" → action_required', (language, from, subject, body, deadline) => {
    // Undated mail counts its deadline from the day it is classified: Monday 23 November 2026.
    const answer = classifyWithRules(email(from, subject, body), new Date('2026-11-23T09:00:00Z'));
    expect(answer).toMatchObject({ category: 'action_required', needs_action: true });
    expect(answer.details.source_signals).toContain('direct_request');
    expect(answer.reasoning).toContain(`${language} message`);
    if (deadline) expect(answer.details.deadline).toBe(deadline);
    expect(answer.task_description).toBeTruthy();
  });

  it('does not take a "please do not reply" footer for a request, in German, Spanish or French', () => {
    for (const [from, body] of [
      [
        'Portal <noreply@portal.example>',
        'Ihr Antrag wurde genehmigt.\n\nDiese E-Mail wurde automatisch erstellt. Bitte antworten Sie nicht auf diese Nachricht.',
      ],
      [
        'Portal <no-responder@portal.example>',
        'Su solicitud ha sido aprobada.\n\nEste es un correo automático, por favor no responda a este mensaje.',
      ],
      [
        'Portail <ne-pas-repondre@portail.example>',
        'Votre demande a été acceptée.\n\nCet e-mail est envoyé automatiquement, merci de ne pas y répondre.',
      ],
    ] as const) {
      const answer = classifyWithRules(email(from, 'Antrag / Solicitud / Demande', body));
      expect(answer.category).toBe('notification');
      expect(answer.details.source_signals).not.toContain('direct_request');
    }
  });

  it('reads Spanish "sale" as leaving, not as a sale', () => {
    const answer = classifyWithRules(
      email(
        'Rosa <rosa@ejemplo.example>',
        'Excursión',
        'Hola a todos:\n\nEl autobús sale a las ocho desde la puerta de la oficina y vuelve a las seis. Llevad agua.\n\nRosa',
      ),
    );
    expect(answer.details.source_signals).not.toContain('promotional_wording');
    expect(answer.category).not.toBe('marketing');
  });
});

describe('phishing: a password or a login asked for on a look-alike domain', () => {
  it.each([
    [
      'en',
      'Dropbox <no-reply@dropb0x-files.com>',
      'A document was shared with you',
      'Someone shared “Invoice_0932.pdf” with you.\n\nTo open it, sign in and confirm your email password at https://dropb0x-files.com/view\n\nThe Dropbox Team',
      'dropbox',
    ],
    [
      'de',
      'PayPal <service@paypal-sicherheit-konto.de>',
      'Ihr Konto wurde eingeschränkt',
      'Sehr geehrter Kunde,\n\nwir haben ungewöhnliche Aktivitäten festgestellt. Bitte melden Sie sich an und bestätigen Sie Ihr Passwort: https://paypal-sicherheit-konto.de/login\n\nIhr PayPal-Team',
      'paypal',
    ],
    [
      'es',
      'Amazon <cuenta@amaz0n-verificacion.com>',
      'Verifique su cuenta',
      'Estimado cliente:\n\nInicie sesión y verifique su contraseña para evitar la suspensión de su cuenta: https://amaz0n-verificacion.com/acceso\n\nServicio al cliente',
      'amazon',
    ],
    [
      'fr',
      'Impots.gouv <contact@impots-remboursement-fr.com>',
      'Remboursement disponible',
      'Bonjour,\n\nVous avez droit à un remboursement. Connectez-vous et confirmez votre mot de passe sur https://impots-remboursement-fr.com/espace pour le recevoir.\n\nDirection générale des Finances publiques',
      'impots',
    ],
  ])('%s → spam with credential_request and lookalike_domain', (_language, from, subject, body, brand) => {
    const answer = classifyWithRules(email(from, subject, body));
    expect(answer).toMatchObject({ category: 'spam', needs_action: false, priority: 'low', task_description: null });
    expect(answer.details.source_signals).toEqual(expect.arrayContaining(['credential_request', 'lookalike_domain']));
    expect(answer.details.key_points[0]).toContain(brand);
  });

  it('leaves a genuine password notice from the brand’s own domain a notification', () => {
    const answer = classifyWithRules(
      email(
        'Google <no-reply@accounts.google.com>',
        'Your password was changed',
        'The password for your Google Account was changed.\n\nIf you did not change it, reset your password at https://accounts.google.com/signin/recovery',
      ),
    );
    expect(answer.category).toBe('notification');
    expect(answer.details.source_signals).not.toContain('lookalike_domain');
  });

  it('leaves a regional bank on its own regional domain alone', () => {
    const answer = classifyWithRules(
      email(
        'Sparkasse Musterstadt <noreply@sparkasse-musterstadt.de>',
        'Neues Dokument',
        'In Ihrem elektronischen Postfach liegt ein neues Dokument bereit. Melden Sie sich im Online-Banking an, um es zu lesen.',
      ),
    );
    expect(answer.category).not.toBe('spam');
    expect(answer.details.source_signals).not.toContain('lookalike_domain');
  });

  it('takes a colleague asking for a Wi-Fi password as a request, not as phishing', () => {
    const answer = classifyWithRules(
      email(
        'Mia <mia@beispiel.example>',
        'WLAN',
        'Hi Robin,\n\nkannst du mir das Passwort für das Gäste-WLAN schicken? Der Besuch kommt um zehn.\n\nMia',
      ),
    );
    expect(answer.category).toBe('action_required');
  });
});

describe('webinar and event promotions are marketing, not newsletters or meetings', () => {
  it.each([
    [
      'Cloudcost <events@cloudcost.example>',
      'Webinar: Kubernetes cost control',
      'Join our free webinar on Thursday at 4pm: our engineers show how to cut your cluster bill in half. Register now, seats are limited.\n\nUnsubscribe',
    ],
    [
      'Servicewerk <events@servicewerk.example>',
      'Live-Webinar: KI im Kundenservice',
      'Erfahren Sie in unserem Live-Webinar am Dienstag, wie Sie Anfragen mit KI schneller beantworten. Jetzt kostenlos anmelden – die Teilnehmerzahl ist begrenzt.\n\nAbmelden',
    ],
    [
      'Gestoría Norte <eventos@gestorianorte.example>',
      'Seminario web gratuito: la nueva ley de facturación',
      'Te invitamos a nuestro seminario web gratuito del jueves a las 12:00. Reserva tu plaza, las plazas son limitadas.\n\nDarse de baja',
    ],
    [
      'Forum RH <contact@forum-rh.example>',
      'Webinaire : recruter en 2026',
      'Participez à notre webinaire le mardi 14 à 11h. Inscrivez-vous gratuitement, les places sont limitées.\n\nSe désinscrire',
    ],
  ])('%s → marketing with event_promotion', (from, subject, body) => {
    const answer = classifyWithRules(email(from, subject, body));
    expect(answer).toMatchObject({ category: 'marketing', needs_action: false });
    expect(answer.details.source_signals).toContain('event_promotion');
  });

  it('still takes a colleague’s invitation to a workshop for a meeting', () => {
    const answer = classifyWithRules(
      email(
        'Kim Lee <kim.lee@contoso.example>',
        'Invitation: Q1 planning workshop',
        'Kim Lee has invited you to a meeting.\n\nQ1 planning workshop\nWhen: Monday 10:00–12:00\nJoin with Google Meet: meet.google.com/abc-defg-hij',
      ),
    );
    expect(answer.category).toBe('meeting');
  });
});

describe('"please join me in welcoming…" announcements ask nothing of the reader', () => {
  it.each([
    [
      'Jo Baker <jo.baker@contoso.example>',
      'New team member',
      'Hi all,\n\nPlease join me in welcoming Priya Shah, who joins the design team today. Priya comes from a small studio in Leeds.\n\nJo',
    ],
    [
      'Petra Lang <petra.lang@beispiel.example>',
      'Neuer Kollege',
      'Liebe Kolleginnen und Kollegen,\n\nseit Montag verstärkt Herr Ömer Demir unser Vertriebsteam. Bitte heißen Sie ihn herzlich willkommen!\n\nPetra Lang',
    ],
    [
      'Irene <irene@ejemplo.example>',
      'Nueva compañera',
      'Hola a todos:\n\nHoy se incorpora Marta Sanz al equipo de Compras. Acompañadme en darle la bienvenida.\n\nIrene',
    ],
    [
      'Claire <claire@exemple.example>',
      'Arrivée de Hugo',
      "Bonjour à tous,\n\nHugo Martin rejoint aujourd'hui l'équipe support. Merci de lui réserver le meilleur accueil !\n\nClaire",
    ],
  ])('%s → fyi with welcome_announcement', (from, subject, body) => {
    const answer = classifyWithRules(email(from, subject, body));
    expect(answer).toMatchObject({ category: 'fyi', needs_action: false, task_description: null });
    expect(answer.details.source_signals).toContain('welcome_announcement');
    expect(answer.details.source_signals).not.toContain('direct_request');
  });

  it('still sees a real request next to a welcome', () => {
    const answer = classifyWithRules(
      email(
        'Jo Baker <jo.baker@contoso.example>',
        'Onboarding',
        'Welcome aboard, Sam! Could you fill in the onboarding form by Friday? HR needs it for your badge.\n\nJo',
      ),
    );
    expect(answer).toMatchObject({ category: 'action_required', needs_action: true });
  });
});
