// What a reply's own text (replyText) says: the option it chooses, its free answer, or a
// review's decision. Pure; the caller applies the result through the conversation's answer,
// whose rules (checkAnswer) these shapes follow.

import { QUESTION_LIMITS } from '../../conversation/contract.js';
import { foldLine } from './reply-text.js';

/**
 * A reply read against its question. With options the desk takes only an option (a free text
 * alone is refused), so `unmatched` answers nothing: the caller keeps the reply as a comment.
 */
export type ReplyAnswer =
  { option: string; answer: string | null } | { option: null; answer: string } | { unmatched: true } | { empty: true };

/** Applied as the review's answer: option `approve` with the note, or `return` with the reason. */
export type ReviewDecision =
  { decision: 'approve'; note: string | null } | { decision: 'return'; reason: string | null };

/** Punctuation, symbols and spaces around a word or an option ("Yes!", "«Oui»", "*2*"). */
const SURROUNDING = /^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$/gu;
// What may follow a chosen option before more words on its line: "Yes, go ahead", "2: later",
// "No - not yet". A separator must end in a space, so "2.5" is not option 2.
const SEPARATOR = /^\s*[,:;.!?)\]\-\u2013\u2014]+(?:\s+|$)/;
// "2", "option 2", "opción 2", "Nr. 2", "n° 2" (folded; a leading hash, "2." and "(2)" lose their marks first).
const NUMBERED = /^(?:(?:option|opcion|choice|nr|n°|num|numero|nummer)\.?\s*#?)?(\d{1,3})$/;
// Options are at most 200 characters: a longer head of a line cannot name one.
const OPTION_HEAD_MAX = QUESTION_LIMITS.option + 20;

/** Folded and stripped of surrounding punctuation: how a line and an option are compared. */
function matchForm(text: string): string {
  return foldLine(text).replace(SURROUNDING, '');
}

/** At most the answer's limit, never cutting a character in two, trimmed; null when empty. */
function answerOf(text: string): string | null {
  const max = QUESTION_LIMITS.text;
  let cut = text.trim();
  if (cut.length > max) {
    const high = cut.charCodeAt(max - 1);
    cut = cut.slice(0, high >= 0xd800 && high <= 0xdbff ? max - 1 : max).trimEnd();
  }
  return cut === '' ? null : cut;
}

/**
 * The option the first line names, and what else the line says after it: the whole line names
 * one (by its text, else by its number from 1), else the longest head of the line that names one
 * and is followed by a separator ("Yes, go ahead").
 */
function chooseOption(line: string, options: readonly string[]): { option: string; more: string } | null {
  const folded = options.map(foldLine);
  const forms = options.map(matchForm);
  const named = (head: string): string | null => {
    // Folded as written first, so options that differ only in punctuation ("+1", "-1") stay apart.
    const asWritten = folded.indexOf(foldLine(head));
    if (asWritten !== -1 && folded[asWritten] !== '') return options[asWritten]!;
    const form = matchForm(head);
    if (form === '') return null;
    const exact = forms.indexOf(form);
    if (exact !== -1) return options[exact]!;
    const number = NUMBERED.exec(form);
    const index = number ? Number(number[1]) - 1 : -1;
    return index >= 0 && index < options.length ? options[index]! : null;
  };
  const whole = named(line);
  if (whole !== null) return { option: whole, more: '' };
  for (let at = Math.min(line.length - 1, OPTION_HEAD_MAX); at > 0; at -= 1) {
    const separator = SEPARATOR.exec(line.slice(at));
    if (separator === null) continue;
    const option = named(line.slice(0, at));
    if (option !== null) return { option, more: line.slice(at + separator[0].length).trim() };
  }
  return null;
}

/**
 * The answer a reply's own text gives. With `options`: the first line names one (case- and
 * accent-insensitively, surrounding punctuation ignored, or by its 1-based number); the rest of
 * the text, if any, is the answer beside it. Without: the first paragraph is the answer. Answers
 * are cut to the desk's limit for an answer (4,000 characters).
 */
export function readAnswer(text: string, options: readonly string[] | null): ReplyAnswer {
  const own = text.trim();
  if (own === '') return { empty: true };
  if (options === null) {
    const paragraph = own.split(/\n[ \t\u00a0]*\r?\n/)[0]!;
    return { option: null, answer: answerOf(paragraph)! };
  }
  const newline = own.indexOf('\n');
  const first = newline === -1 ? own : own.slice(0, newline);
  const rest = newline === -1 ? '' : own.slice(newline + 1);
  const chosen = chooseOption(first, options);
  if (chosen === null) return { unmatched: true };
  return { option: chosen.option, answer: answerOf([chosen.more, rest].filter((part) => part.trim()).join('\n')) };
}

// The words a review's reply may open with (compared folded: no accents, lower case). "ok" and
// "lgtm" approve because people write them; "no" and "nein" do not return, as they may open
// anything ("no problem").
const APPROVE_WORDS = new Set(
  [
    'approve approved approving accept accepted ok okay lgtm', // en
    'genehmigen genehmigt genehmige freigeben freigegeben freigabe akzeptieren akzeptiert', // de
    'aprobar aprobado aprobada apruebo aceptar aceptado acepto', // es
    'approuver approuve approuvee valider valide validee accepter accepte acceptee', // fr
  ].flatMap((words) => words.split(' ')),
);
const RETURN_WORDS = new Set(
  [
    'return returned returning reject rejected', // en
    'zuruckgeben zuruckgegeben zuruck zurueck zurueckgeben zuruckweisen ablehnen abgelehnt', // de
    'devolver devuelto devuelvo rechazar rechazado rechazo', // es
    'renvoyer renvoye renvoie retourner retourne rejeter rejete refuser refuse', // fr
  ].flatMap((words) => words.split(' ')),
);

/**
 * A review's decision from the reply's first word, in en/de/es/fr (the lists above), with the
 * rest of the text as the note or the reason; null when the first word is neither. A return
 * without a reason comes back with `reason: null`: the desk refuses to return work without one,
 * so the caller answers nothing and says in a comment that a reason is needed.
 */
export function readReview(text: string): ReviewDecision | null {
  const own = text.trim().replace(/^[\p{P}\p{S}\s]+/u, '');
  const word = /^[\p{L}\p{M}]+/u.exec(own)?.[0];
  if (word === undefined) return null;
  const after = own.slice(word.length);
  // "Approve?" asks rather than decides.
  if (/^\s*[?¿]/.test(after)) return null;
  const folded = foldLine(word);
  const rest = answerOf(after.replace(/^[\p{P}\p{S}\s]+/u, ''));
  if (APPROVE_WORDS.has(folded)) return { decision: 'approve', note: rest };
  if (RETURN_WORDS.has(folded)) return { decision: 'return', reason: rest };
  return null;
}
