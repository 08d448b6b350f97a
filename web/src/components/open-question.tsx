import { useEffect, useRef, useState } from 'preact/hooks';
import { type AnswerBody, answerQuestion, isReview, type Question, REVIEW } from '../lib/conversation.ts';
import { formatDateTime, formatWaited } from '../lib/format.ts';
import { useSubmit } from '../lib/use-submit.ts';
import { LinkedText } from './linked-text.tsx';
import { ProblemMessage } from './problem-message.tsx';
import { UserText, visibleBidi } from './user-text.tsx';

// A question an agent put to a person, or the review its "done" waits for, and the way to answer
// it: the offered options as buttons, else a text box; a review as Approve and Return (Return says
// why, and the agent reads it). The item page shows it at the top; Needs you lists them.

const MAX_ANSWER = 4_000;
/** How much of the item's description an accessible name carries. */
const SUBJECT_CHARS = 80;

/**
 * `what` named by the item it is about: "Answer: Deploy the fix". Every form is named so, as a
 * list of them is only told apart by what each is about.
 */
export function aboutItem(what: string, subject: string): string {
  const s = visibleBidi(subject.trim());
  return `${what}: ${s.length > SUBJECT_CHARS ? `${s.slice(0, SUBJECT_CHARS - 1)}…` : s}`;
}

export function OpenQuestion(props: {
  question: Question;
  /** The item's description: each form and group is named by it. */
  subject: string;
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
  const [confirming, setConfirming] = useState(false);
  // Where focus goes when the review's buttons come back (from the confirmation or the return form).
  const [refocus, setRefocus] = useState<ReviewButton | null>(null);
  const { busy, problem, run } = useSubmit();
  const headingId = `question-${q.id}`;

  const send = async (body: AnswerBody) => {
    await run(
      async () => {
        await answerQuestion(q, body);
        setText('');
        setReturning(false);
        setConfirming(false);
        props.onAnswered();
      },
      (p) => {
        // answered by someone else meanwhile (the service's 409): show where things are now
        if (p.status === 409) props.onAnswered();
      },
    );
  };

  return (
    <section
      class={`open-question${review ? ' review' : ''}`}
      {...(props.compact
        ? { 'aria-label': aboutItem(review ? 'Review' : 'Question', props.subject) }
        : { 'aria-labelledby': headingId })}
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
      {props.mayAnswer &&
        !props.ownWork &&
        (review ? (
          <div class="stack">
            {confirming ? (
              <ApproveConfirm
                subject={props.subject}
                busy={busy}
                onConfirm={() => void send({ option: REVIEW.approve })}
                onCancel={() => {
                  setRefocus('approve');
                  setConfirming(false);
                }}
              />
            ) : !returning ? (
              <ReviewButtons
                busy={busy}
                focus={refocus}
                onApprove={() => setConfirming(true)}
                onReturn={() => setReturning(true)}
              />
            ) : (
              <form
                class="stack"
                aria-label={aboutItem('Return for more work', props.subject)}
                onSubmit={(e) => {
                  e.preventDefault();
                  void send({ option: REVIEW.return, answer: text });
                }}
              >
                <label>
                  What should change? (the agent reads this)
                  <textarea
                    name="why"
                    rows={3}
                    required
                    maxLength={MAX_ANSWER}
                    value={text}
                    autoFocus
                    onInput={(e) => setText(e.currentTarget.value)}
                  />
                </label>
                <div class="row wrap">
                  <button type="submit" class="primary" disabled={busy || text.trim() === ''}>
                    Return to {q.asked_by}
                  </button>
                  <button
                    type="button"
                    onClick={() => {
                      setRefocus('return');
                      setReturning(false);
                    }}
                  >
                    Back
                  </button>
                </div>
              </form>
            )}
          </div>
        ) : q.options && q.options.length > 0 ? (
          <div class="row wrap options" role="group" aria-label={aboutItem('Answer with one of', props.subject)}>
            {q.options.map((o) => (
              <button key={o} type="button" class="option" disabled={busy} onClick={() => void send({ option: o })}>
                <UserText text={o} />
              </button>
            ))}
          </div>
        ) : (
          <form
            class="stack"
            aria-label={aboutItem('Answer', props.subject)}
            onSubmit={(e) => {
              e.preventDefault();
              void send({ answer: text });
            }}
          >
            <label>
              Your answer
              <textarea
                name="answer"
                rows={3}
                required
                maxLength={MAX_ANSWER}
                value={text}
                onInput={(e) => setText(e.currentTarget.value)}
              />
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

type ReviewButton = 'approve' | 'return';

/** Approve and Return; `focus` names the one to focus when they are drawn again (none at first). */
function ReviewButtons(props: {
  busy: boolean;
  focus: ReviewButton | null;
  onApprove: () => void;
  onReturn: () => void;
}) {
  const approve = useRef<HTMLButtonElement>(null);
  const back = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (props.focus === 'approve') approve.current?.focus();
    else if (props.focus === 'return') back.current?.focus();
  }, []);
  return (
    <div class="row wrap">
      <button ref={approve} type="button" class="primary" disabled={props.busy} onClick={props.onApprove}>
        Approve
      </button>
      <button ref={back} type="button" disabled={props.busy} onClick={props.onReturn}>
        Return…
      </button>
    </div>
  );
}

/**
 * Approve asks once more, in place: approval completes the item and cannot be taken back. Focus
 * moves to the confirming button; Escape or Cancel go back to Approve.
 */
function ApproveConfirm(props: { subject: string; busy: boolean; onConfirm: () => void; onCancel: () => void }) {
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    confirm.current?.focus();
  }, []);
  return (
    <div
      class="approve-confirm stack tight"
      role="group"
      aria-label={aboutItem('Confirm approval', props.subject)}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          props.onCancel();
        }
      }}
    >
      <p>
        <strong>Approve this work?</strong> The item completes with outcome success, and the agent is told.
      </p>
      <div class="row wrap">
        <button ref={confirm} type="button" class="primary" disabled={props.busy} onClick={props.onConfirm}>
          Approve and complete
        </button>
        <button type="button" disabled={props.busy} onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
