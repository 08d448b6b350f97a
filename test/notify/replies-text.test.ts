import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/email/html-to-text.js';
import { replyText } from '../../src/notify/index.js';

// A reply's own text, as the mail clients people use write their replies (text/plain parts).

const lines = (...text: string[]): string => text.join('\n');
const crlf = (...text: string[]): string => text.join('\r\n');

describe('replyText: replies written above the quote', () => {
  it.each([
    [
      'Gmail, en',
      lines(
        'Go ahead with the second plan.',
        '',
        'On Mon, 3 Nov 2026 at 10:02, Ann Example <ann@example.org> wrote:',
        '',
        '> Which plan should I follow?',
        '> 1. First',
        '> 2. Second',
        '>',
      ),
      'Go ahead with the second plan.',
    ],
    [
      'Gmail, en, the attribution wrapped over two lines',
      lines(
        'Second, please',
        '',
        'On Mon, Nov 3, 2026 at 10:02 AM agentdesk (Build agent) <desk+q1.abc@example.org>',
        'wrote:',
        '',
        '> Which plan should I follow?',
      ),
      'Second, please',
    ],
    [
      'Gmail, en, wrapped inside the address',
      lines('Yes', '', 'On Mon, Nov 3, 2026 at 10:02 AM Ann Example <', 'ann@example.org> wrote:', '', '> Ship it?'),
      'Yes',
    ],
    [
      'Gmail, de',
      lines(
        'Ja, bitte so machen.',
        '',
        'Am Mo., 3. Nov. 2026 um 10:02 Uhr schrieb Ann Beispiel <ann@example.org>:',
        '',
        '> Soll ich fortfahren?',
      ),
      'Ja, bitte so machen.',
    ],
    [
      'Gmail, es',
      lines(
        'Sí, adelante.',
        '',
        'El lun, 3 nov 2026 a las 10:02, Ann Ejemplo (<ann@example.org>) escribió:',
        '',
        '> ¿Sigo adelante?',
      ),
      'Sí, adelante.',
    ],
    [
      'Gmail, fr, a non-breaking space before the colon',
      lines(
        'Oui, allez-y\u00a0!',
        '',
        'Le lun. 3 nov. 2026 à 10:02, Ann Exemple <ann@example.org> a écrit\u00a0:',
        '',
        '> Je continue\u00a0?',
      ),
      'Oui, allez-y\u00a0!',
    ],
    [
      'Apple Mail, en (the attribution is quoted too), with its footer',
      lines(
        'Approve',
        '',
        'Sent from my iPhone',
        '',
        '> On 3 Nov 2026, at 10:02, agentdesk <desk@example.org> wrote:',
        '> ',
        '> Please review the release notes.',
      ),
      'Approve',
    ],
    [
      'Apple Mail, de',
      lines(
        'Zurück: die Tabelle fehlt.',
        '',
        'Von meinem iPhone gesendet',
        '',
        '> Am 03.11.2026 um 10:02 schrieb agentdesk <desk@example.org>:',
        '> ',
        '> Bitte prüfen.',
      ),
      'Zurück: die Tabelle fehlt.',
    ],
    [
      'Apple Mail, es',
      lines(
        'Aprobado',
        '',
        'Enviado desde mi iPhone',
        '',
        '> El 3 nov 2026, a las 10:02, agentdesk <desk@example.org> escribió:',
        '> ',
        '> Revisa esto.',
      ),
      'Aprobado',
    ],
    [
      'Apple Mail, fr',
      lines(
        'Renvoyer : il manque les tests.',
        '',
        'Envoyé de mon iPhone',
        '',
        '> Le 3 nov. 2026 à 10:02, agentdesk <desk@example.org> a écrit :',
        '> ',
        '> Merci de relire.',
      ),
      'Renvoyer : il manque les tests.',
    ],
    [
      'Thunderbird, en, with a signature',
      lines(
        'The second one.',
        'Thanks',
        '',
        '-- ',
        'Ann Example',
        'Release manager',
        '',
        'On 11/3/26 10:02, agentdesk wrote:',
        '> Which one?',
      ),
      'The second one.\nThanks',
    ],
    [
      'Thunderbird, de',
      lines('Die zweite.', '', 'Am 03.11.26 um 10:02 schrieb agentdesk:', '> Welche?'),
      'Die zweite.',
    ],
    [
      'Thunderbird, es',
      lines('La segunda.', '', 'El 3/11/26 a las 10:02, agentdesk escribió:', '> ¿Cuál?'),
      'La segunda.',
    ],
    [
      'Thunderbird, fr',
      lines('La deuxième.', '', 'Le 03/11/2026 à 10:02, agentdesk a écrit :', '> Laquelle ?'),
      'La deuxième.',
    ],
    [
      'Outlook desktop, en (Original Message banner)',
      lines(
        'Option 2 is fine.',
        '',
        '-----Original Message-----',
        'From: agentdesk <desk@example.org>',
        'Sent: Monday, November 3, 2026 10:02 AM',
        'To: Ann Example <ann@example.org>',
        'Subject: [agentdesk] build asks: which plan?',
        '',
        'Which plan should I follow?',
      ),
      'Option 2 is fine.',
    ],
    [
      'Outlook desktop, en (header block under a rule)',
      lines(
        'Option 2 is fine.',
        '',
        '________________________________',
        'From: agentdesk <desk@example.org>',
        'Sent: Monday, November 3, 2026 10:02 AM',
        'To: Ann Example <ann@example.org>',
        'Subject: [agentdesk] build asks: which plan?',
        '',
        'Which plan should I follow?',
      ),
      'Option 2 is fine.',
    ],
    [
      'Outlook on the web, en, bold headers rendered from HTML',
      lines(
        'First',
        '',
        '*From:* agentdesk <desk@example.org>',
        '*Sent:* Monday, November 3, 2026 10:02',
        '*To:* Ann Example <ann@example.org>',
        '*Subject:* which plan?',
        '',
        'Which plan should I follow?',
      ),
      'First',
    ],
    [
      'Outlook, de',
      lines(
        'Genehmigt',
        '',
        'Von: agentdesk <desk@example.org>',
        'Gesendet: Montag, 3. November 2026 10:02',
        'An: Ann Beispiel <ann@example.org>',
        'Betreff: [agentdesk] Prüfung',
        '',
        'Bitte prüfen.',
      ),
      'Genehmigt',
    ],
    [
      'Outlook, de (Ursprüngliche Nachricht)',
      lines('Genehmigt', '', '-----Ursprüngliche Nachricht-----', 'Von: agentdesk <desk@example.org>', 'Bitte prüfen.'),
      'Genehmigt',
    ],
    [
      'Outlook, es',
      lines(
        'Devolver: falta la tabla.',
        '',
        'De: agentdesk <desk@example.org>',
        'Enviado: lunes, 3 de noviembre de 2026 10:02',
        'Para: Ann Ejemplo <ann@example.org>',
        'Asunto: [agentdesk] Revisión',
        '',
        'Revisa esto.',
      ),
      'Devolver: falta la tabla.',
    ],
    [
      'Outlook, fr (spaces before the colons)',
      lines(
        'Approuvé',
        '',
        'De : agentdesk <desk@example.org>',
        'Envoyé : lundi 3 novembre 2026 10:02',
        'À : Ann Exemple <ann@example.org>',
        'Objet : [agentdesk] Relecture',
        '',
        'Merci de relire.',
      ),
      'Approuvé',
    ],
    [
      'Outlook mobile, en',
      lines('Yes', '', 'Get Outlook for iOS', '________________________________', 'From: agentdesk', 'Sent: today'),
      'Yes',
    ],
  ])('%s', (_client, body, own) => {
    expect(replyText(body)).toBe(own);
  });
});

describe('replyText: line endings, spaces, bottom-posting', () => {
  it('reads CRLF like LF and strips trailing whitespace', () => {
    const body = crlf('Second  ', '', 'On Mon, 3 Nov 2026 at 10:02, Ann <a@x> wrote:   ', '> Which?', '');
    expect(replyText(body)).toBe('Second');
  });

  it('finds the signature delimiter without its trailing space', () => {
    expect(replyText(crlf('Yes', '--', 'Ann'))).toBe('Yes');
    expect(replyText('Yes\n-- \nAnn')).toBe('Yes');
  });

  it('keeps what a person wrote below the quote (Thunderbird bottom-posting)', () => {
    const body = lines(
      'On 11/3/26 10:02, agentdesk wrote:',
      '> Which plan should I follow?',
      '> 1. First',
      '',
      'The first one.',
      '',
      '-- ',
      'Ann',
    );
    expect(replyText(body)).toBe('The first one.');
  });

  it('keeps text between quotes of an interleaved reply and drops the quoted lines', () => {
    expect(replyText(lines('> Which plan?', 'First.', '> Why?', 'Cheaper.'))).toBe('First.\nCheaper.');
  });

  it('keeps sentences that end like an attribution', () => {
    expect(replyText(lines('Le rapport est prêt.', 'Marie a écrit :', 'tout va bien'))).toBe(
      'Le rapport est prêt.\nMarie a écrit :\ntout va bien',
    );
    expect(replyText(lines('On the ticket Bob wrote:', 'it is fine'))).toBe('On the ticket Bob wrote:\nit is fine');
  });

  it('keeps a wrapped-looking line that is not an attribution', () => {
    expect(replyText(lines('On Monday I can start.', 'Wrote the plan already.'))).toBe(
      'On Monday I can start.\nWrote the plan already.',
    );
  });
});

describe('replyText: more client forms', () => {
  it('cuts Outlook es "Enviado el:" and a long Android footer', () => {
    const outlook = lines(
      'Sí',
      '',
      'De: agentdesk <desk@example.org>',
      'Enviado el: lunes, 3 de noviembre de 2026 10:02',
      'Para: Ann',
      'Asunto: ¿Sigo?',
      '',
      '¿Sigo?',
    );
    expect(replyText(outlook)).toBe('Sí');
    expect(
      replyText(
        lines('Yes', '', 'Sent from my Samsung Galaxy smartphone.', '', '-------- Original message --------', 'x'),
      ),
    ).toBe('Yes');
  });

  it('keeps a line that only begins like a footer', () => {
    expect(replyText('Sent from my desk at work, where the logs are: all green.')).toBe(
      'Sent from my desk at work, where the logs are: all green.',
    );
  });

  it('reads a long message of quotes one after another without running out of stack', () => {
    const body = Array.from({ length: 50_000 }, (_, index) => `On day ${index}, Ann wrote:\n> q${index}`).join('\n');
    expect(replyText(`${body}\nAnswer at the bottom`)).toBe('Answer at the bottom');
  });
});

describe('replyText: HTML-only replies rendered by the email module first', () => {
  const render = (html: string): string => renderHtml(html).text;

  it.each([
    [
      'Gmail',
      '<div dir="ltr">Second, please<br></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, 3 Nov 2026 at 10:02, Ann &lt;<a href="mailto:a@x">a@x</a>&gt; wrote:<br></div><blockquote class="gmail_quote">Which plan?</blockquote></div>',
      'Second, please',
    ],
    [
      'Outlook on the web, de',
      '<div>Genehmigt</div><div id="appendonsend"></div><hr><div id="divRplyFwdMsg" dir="ltr"><b>Von:</b> agentdesk &lt;desk@example.org&gt;<br><b>Gesendet:</b> Montag, 3. November 2026 10:02<br><b>An:</b> Ann<br><b>Betreff:</b> Prüfung</div><div>Bitte prüfen.</div>',
      'Genehmigt',
    ],
    [
      'Apple Mail',
      '<html><body dir="auto">Approve<br><br><div dir="ltr">Sent from my iPhone</div><blockquote type="cite">On 3 Nov 2026, at 10:02, agentdesk &lt;desk@example.org&gt; wrote:<br><br><div dir="ltr">Please review</div></blockquote></body></html>',
      'Approve',
    ],
    [
      'Gmail, only the quote',
      '<div class="gmail_quote"><div class="gmail_attr">On Mon, 3 Nov 2026 at 10:02, Ann &lt;a@x&gt; wrote:<br></div><blockquote class="gmail_quote">Which plan?</blockquote></div>',
      '',
    ],
  ])('%s', (_client, html, own) => {
    expect(replyText(render(html))).toBe(own);
  });
});

describe('replyText: a reply that is only a quote', () => {
  it.each([
    ['Gmail', lines('', 'On Mon, 3 Nov 2026 at 10:02, Ann <a@x> wrote:', '', '> Which?')],
    ['Apple Mail', lines('Sent from my iPhone', '', '> On 3 Nov 2026, at 10:02, Ann <a@x> wrote:', '> Which?')],
    ['Outlook', lines('', 'From: Ann <a@x>', 'Sent: Monday', 'To: Bob', 'Subject: Which?', '', 'Which?')],
    ['Outlook banner', lines('-----Original Message-----', 'Which?')],
    ['Outlook banner, es', lines('-----Mensaje original-----', '¿Cuál?')],
    ['Outlook banner, fr', lines('-----Message d’origine-----', 'Laquelle ?')],
    ['a forward', lines('---------- Forwarded message ---------', 'From: Ann <a@x>', 'Which?')],
    ['only ">" lines', lines('> Which?', '>', '> 1. First')],
    ['only a signature', lines('-- ', 'Ann Example')],
    ['nothing', '  \r\n\t'],
  ])('%s gives ""', (_client, body) => {
    expect(replyText(body)).toBe('');
  });
});

describe('replyText: properties', () => {
  it('never throws on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.string({ unit: 'binary' })), (body) => {
        expect(typeof replyText(body)).toBe('string');
      }),
    );
  });

  const markerLine = fc.constantFrom(
    'On Mon, 3 Nov 2026 at 10:02, Ann <a@x> wrote:',
    'Am 03.11.2026 um 10:02 schrieb Ann <a@x>:',
    '-----Original Message-----',
    'From: Ann',
    'Sent: Monday',
    '-- ',
    '> quoted',
    ' >> nested',
    'Sent from my iPhone',
  );
  const anyLine = fc.oneof(fc.string({ maxLength: 40 }), markerLine);

  it('never returns a line starting with ">"', () => {
    fc.assert(
      fc.property(fc.array(anyLine, { maxLength: 20 }), fc.constantFrom('\n', '\r\n'), (body, eol) => {
        const own = replyText(body.join(eol));
        expect(own.split('\n').filter((line) => line.startsWith('>'))).toEqual([]);
      }),
    );
  });

  it('returns text without any quote marker unchanged but trimmed', () => {
    const plain = fc.string({
      unit: fc.constantFrom(...'abcxyzäéñß 0123456789,.!?¿\t\n'.split('')),
      maxLength: 300,
    });
    fc.assert(
      fc.property(plain, (body) => {
        expect(replyText(body)).toBe(body.trim());
      }),
    );
  });
});
