import type { Question } from '../../conversation/contract.js';
import type { ItemSummary, LinkOutcome, LinkRefusal } from './service.js';

// The answer link's pages as HTML text: everything from the item and the question is escaped,
// no script, no outside resource (the route's Content-Security-Policy holds it to that).

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}dt{color:#555}dd{margin:0;white-space:pre-wrap}
.q{white-space:pre-wrap;font-size:1.15rem;border-left:4px solid #3b6fd6;padding-left:.75rem}
button{font:inherit;padding:.5rem 1rem;margin:.25rem .5rem .25rem 0;border-radius:6px;border:1px solid #3b6fd6;background:#eef3fd;cursor:pointer}
textarea{width:100%;min-height:6rem;font:inherit;box-sizing:border-box}.problem{color:#a11;font-weight:600}
button.chosen{background:#3b6fd6;color:#fff}`;

const REFUSALS: Record<LinkRefusal, { title: string; text: string }> = {
  malformed: {
    title: 'This link is not valid',
    text: 'The link is incomplete or damaged. Copy it again from the email, whole.',
  },
  forged: {
    title: 'This link is not valid',
    text: 'The link was changed or was not made by this desk. Answer on the desk instead.',
  },
  expired: {
    title: 'This link has expired',
    text: 'Answer links work for a limited time. Answer on the desk instead.',
  },
  used: { title: 'Already answered', text: 'This question has been answered; nothing was changed.' },
  moot: { title: 'No longer waiting', text: 'The work item finished before an answer came; nothing was changed.' },
  gone: { title: 'Question not found', text: 'The question or its work item no longer exists.' },
  forbidden: {
    title: 'You cannot answer this one',
    text: 'This review is of your own work: another person reviews it.',
  },
};

/** Text safe in HTML content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow"><title>${escapeHtml(title)} · agentdesk</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>
`;
}

function itemFacts(item: ItemSummary, question: Question): string {
  const rows: Array<[string, string]> = [
    ['Asked by', question.asked_by],
    ['Type', item.type],
    ['Priority', String(item.priority)],
    ...(item.project === null ? [] : ([['Project', item.project]] as Array<[string, string]>)),
    ['Work item', item.description],
  ];
  return `<dl>${rows.map(([name, value]) => `<dt>${escapeHtml(name)}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>`;
}

/** A submit button for an option; the one the email's button chose is marked and focused. */
function optionButton(value: string, label: string, chosen: string | null): string {
  const mark = value === chosen ? ' class="chosen" autofocus' : '';
  return `<button type="submit" name="option" value="${escapeHtml(value)}"${mark}>${escapeHtml(label)}</button>`;
}

function form(
  question: Question,
  item: ItemSummary,
  person: string,
  problem: string | null,
  chosen: string | null,
): string {
  const review = question.kind === 'review';
  const heading = review ? 'A review waits for you' : 'A question waits for you';
  let controls: string;
  if (review) {
    controls = `<p><label for="answer">To return the work, say why (needed); to approve, a note if you like:</label></p>
<textarea id="answer" name="answer" maxlength="4000"></textarea>
<p>${optionButton('approve', 'Approve', chosen)}${optionButton('return', 'Return with the reason above', chosen)}</p>`;
  } else if (question.options !== null) {
    const buttons = question.options.map((option) => optionButton(option, option, chosen)).join('');
    controls = `<p>${buttons}</p><p><label for="answer">A note with your choice (optional):</label></p>
<textarea id="answer" name="answer" maxlength="4000"></textarea>`;
  } else {
    controls = `<p><label for="answer">Your answer:</label></p>
<textarea id="answer" name="answer" maxlength="4000" required></textarea>
<p><button type="submit">Send the answer</button></p>`;
  }
  return document(
    heading,
    `<h1>${escapeHtml(heading)}</h1>
<p class="q">${escapeHtml(question.question)}</p>
${itemFacts(item, question)}
${problem === null ? '' : `<p class="problem" role="alert">${escapeHtml(problem)}</p>`}
${chosen === null ? '' : `<p>You chose <strong>${escapeHtml(chosen)}</strong> in the email: press it below to send it.</p>`}
<form method="post">
${controls}
</form>
<p>You answer as <strong>${escapeHtml(person)}</strong>. Opening this page changed nothing.</p>`,
  );
}

function answered(question: Question, item: ItemSummary): string {
  const said = [question.option, question.answer].filter((part): part is string => part !== null).join(': ');
  return document(
    'Thank you',
    `<h1>Thank you: your answer was recorded</h1>
<p class="q">${escapeHtml(question.question)}</p>
${itemFacts(item, question)}
<p>You answered: <strong>${escapeHtml(said)}</strong></p>`,
  );
}

function refused(reason: LinkRefusal): string {
  const { title, text } = REFUSALS[reason];
  return document(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`);
}

export function renderOutcome(outcome: LinkOutcome): string {
  switch (outcome.kind) {
    case 'form':
      return form(outcome.question, outcome.item, outcome.person, outcome.problem, outcome.chosen ?? null);
    case 'answered':
      return answered(outcome.question, outcome.item);
    case 'refused':
      return refused(outcome.reason);
    default: {
      const never: never = outcome;
      return never;
    }
  }
}
