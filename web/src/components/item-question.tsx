import { useEffect, useState } from 'preact/hooks';
import type { WorkItem } from '../../../src/work/schemas.ts';
import { api } from '../lib/api.ts';
import { mayAnswer, type Question, questionsPath } from '../lib/conversation.ts';
import { useLive } from '../lib/live.ts';
import { refreshNeedsYou } from '../lib/needs-you.ts';
import { useSession } from '../lib/session.ts';
import { useLoad } from '../lib/use-load.ts';
import { OpenQuestion } from './open-question.tsx';

// The item's open question or review, at the top of its page: what the agent waits for comes
// before everything else. An item has at most one open at a time (the service's rule).

export function ItemQuestion(props: {
  item: WorkItem;
  onAnswered: () => void;
  /** Told whether a question or review is open, so the actions can say what Unblock would do. */
  onOpen: (open: 'question' | 'review' | null) => void;
}) {
  const { item, onAnswered, onOpen } = props;
  const session = useSession();
  const [tick, setTick] = useState(0);
  const path = questionsPath(item.id);
  const questions = useLoad<Question[]>(`${path}#${item.version}#${tick}`, async (signal) => (await api<Question[]>('GET', path, undefined, signal)).data);
  useLive((e) => {
    if (((e.type === 'question.asked' || e.type === 'question.answered' || e.type === 'question.moot') && e.data.work_item_id === item.id) || e.type === 'resync') {
      setTick((t) => t + 1);
    }
  });
  const open = questions.data?.find((q) => q.status === 'open');
  const openKind = open ? open.kind : null;
  useEffect(() => onOpen(openKind), [openKind]);
  if (!open) return null;
  return (
    <div class="card question-card">
      <OpenQuestion
        key={open.id}
        question={open}
        mayAnswer={mayAnswer(session)}
        onAnswered={() => {
          setTick((t) => t + 1);
          refreshNeedsYou();
          onAnswered();
        }}
      />
    </div>
  );
}
