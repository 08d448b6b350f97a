import { useState } from 'preact/hooks';
import { type ApiProblem, toProblem } from '../lib/api.ts';
import { type AnswerBody, answerQuestion, isReview, type Question, REVIEW } from '../lib/conversation.ts';
import { formatDateTime, formatWaited } from '../lib/format.ts';
import { LinkedText } from './linked-text.tsx';
import { ProblemMessage } from './problem-message.tsx';
import { UserText } from './user-text.tsx';

// A question an agent put to a person, or the review its "done" waits for, and the way to answer
// it: the offered options as buttons, else a text box; a review as Approve and Return (Return
// says why, and the agent reads it). The item page shows it at the top; Needs you lists them.
// Someone else may answer first: the service's 409 is shown and the list moves on.

const MAX_ANSWER = 4_000;

export function OpenQuestion(props: {
  question: Question;
  /** False for a caller who may not answer (an agent, a viewer): the question shows, the buttons do not. */
  mayAnswer: boolean;
  /** A review of the caller's own work: it shows, with who reviews it, and no buttons. */
  ownWork?: boolean;
  onAnswered: () => void;
  /** Inside a Needs you entry, which already names the asker and the wait: no heading of its own. */
  compact?: boolean;
  now?: number;
}) {
  const q = props.question;
  const review = isReview(q);
  const [text, setText] = useState('');
  const [returning, setReturning] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const headingId = `question-${q.id}`;

  const send = async (body: AnswerBody) => {
    setBusy(true);
    setProblem(null);
    try {
      await answerQuestion(q, body);
      setText('');
      setReturning(false);
      props.onAnswered();
    } catch (err) {
      const p = toProblem(err);
      setProblem(p);
      // answered by someone else meanwhile: show where things are now
      if (p.status === 409) props.onAnswered();
    } finally {
      setBusy(false);
    }
  };

  return (
    <section
      class={`open-question${review ? ' review' : ''}`}
      {...(props.compact ? { 'aria-label': review ? 'Review' : 'Question' } : { 'aria-labelledby': headingId })}
      data-question-id={q.id}
    >
      {!props.compact && (
        <>
          <h2 id={headingId} class="question-title">
            {review ? 'Waiting for review' : 'Question for a person'}
          </h2>
          <p class="question-meta muted small">
            <strong class="asker">
              <UserText text={q.asked_by} />
            </strong>{' '}
            {review ? 'sent its work for review' : 'asked'} ·{' '}
            <time dateTime={q.asked_at} title={formatDateTime(q.asked_at)}>
              {formatWaited(q.asked_at, props.now)}
            </time>
          </p>
        </>
      )}
      {!review && (
        <p class="question-text">
          <LinkedText text={q.question} />
        </p>
      )}
      {review && q.question !== '' && (
        <p class="question-text muted">
          <LinkedText text={q.question} />
        </p>
      )}
      {props.ownWork && <p class="muted small">This is your own work: another person reviews it.</p>}
      {!props.mayAnswer && !props.ownWork && <p class="muted small">A person answers this: a member or an admin.</p>}
      {props.mayAnswer && !props.ownWork &&
        (review ? (
          <div class="stack">
            {!returning ? (
              <div class="row wrap">
                <button type="button" class="primary" disabled={busy} onClick={() => void send({ option: REVIEW.approve })}>
                  Approve
                </button>
                <button type="button" disabled={busy} onClick={() => setReturning(true)}>
                  Return…
                </button>
              </div>
            ) : (
              <form
                class="stack"
                aria-label="Return for more work"
                onSubmit={(e) => {
                  e.preventDefault();
                  void send({ option: REVIEW.return, answer: text });
                }}
              >
                <label>
                  What should change? (the agent reads this)
                  <textarea name="why" rows={3} required maxLength={MAX_ANSWER} value={text} autoFocus onInput={(e) => setText(e.currentTarget.value)} />
                </label>
                <div class="row wrap">
                  <button type="submit" class="primary" disabled={busy || text.trim() === ''}>
                    Return to {q.asked_by}
                  </button>
                  <button type="button" onClick={() => setReturning(false)}>
                    Back
                  </button>
                </div>
              </form>
            )}
          </div>
        ) : q.options && q.options.length > 0 ? (
          <div class="row wrap options" role="group" aria-label="Answer with one of">
            {q.options.map((o) => (
              <button key={o} type="button" class="option" disabled={busy} onClick={() => void send({ option: o })}>
                <UserText text={o} />
              </button>
            ))}
          </div>
        ) : (
          <form
            class="stack"
            aria-label="Answer"
            onSubmit={(e) => {
              e.preventDefault();
              void send({ answer: text });
            }}
          >
            <label>
              Your answer
              <textarea name="answer" rows={3} required maxLength={MAX_ANSWER} value={text} onInput={(e) => setText(e.currentTarget.value)} />
            </label>
            <div class="row">
              <button type="submit" class="primary" disabled={busy || text.trim() === ''}>
                Send answer
              </button>
            </div>
          </form>
        ))}
      <ProblemMessage problem={problem} />
    </section>
  );
}
