import type { WorkItem } from '../../../../src/work/api-contract.ts';
import { isOwnReview, mayAnswer, type Question } from '../../lib/conversation.ts';
import { refreshNeedsYou } from '../../lib/needs-you.ts';
import { useSession } from '../../lib/session.ts';
import { OpenQuestion } from '../../components/open-question.tsx';
import { formatDateTime } from '../../lib/format.ts';

// The item's open question or review, at the top of its page: what the agent waits for comes
// before everything else. An item has at most one open at a time (the service's rule). The page
// reads the questions with the item, so the card is there in the page's first paint.

/** The item's open question or review, if any. */
export function openQuestionOf(questions: readonly Question[]): Question | undefined {
  return questions.find((q) => q.status === 'open');
}

export function ItemQuestion(props: { item: WorkItem; questions: readonly Question[]; onAnswered: () => void }) {
  const session = useSession();
  const open = openQuestionOf(props.questions);
  if (!open) return null;
  return (
    <div class="card question-card">
      {open.overdue && (
        <p class="small" data-testid="overdue">
          <span class="pill overdue">overdue</span> past its project's answer time
          {open.due_at && `, due ${formatDateTime(open.due_at)}`}.
        </p>
      )}
      <OpenQuestion
        key={open.id}
        question={open}
        subject={props.item.description}
        mayAnswer={mayAnswer(session)}
        ownWork={isOwnReview(session, open)}
        onAnswered={() => {
          refreshNeedsYou();
          props.onAnswered();
        }}
      />
    </div>
  );
}
