import { describe, expect, it } from 'vitest';
import { createLogView } from '../../src/intake/log-view.js';
import type { LoggedMessage } from '../../src/intake/store/port.js';

// The questions the pipeline asks of the log, answered from one lookup plus the batch's own
// entries: each must pick what its one-statement-per-message query picked.

let n = 0;
function entry(fields: Partial<LoggedMessage>): LoggedMessage {
  n += 1;
  return {
    id: `id-${n}`,
    source_ref: `imap:1:${n}`,
    source_hash: `hash-${n}`,
    message_key: `<m${n}@x>`,
    conversation_key: null,
    fingerprint: null,
    status: 'done',
    action: 'recorded',
    work_item_id: null,
    created_at: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`,
    ...fields,
  };
}

describe('the log as a batch sees it', () => {
  it('finds the earliest handled copy and content, and ignores failed entries', () => {
    const failed = entry({
      source_hash: 'h',
      fingerprint: 'f',
      status: 'failed',
      created_at: '2026-01-01T00:00:00.000Z',
    });
    const later = entry({ source_hash: 'h', fingerprint: 'f', created_at: '2026-01-02T00:00:00.000Z' });
    const earlier = entry({ source_hash: 'h', fingerprint: 'f', created_at: '2026-01-01T12:00:00.000Z' });
    const log = createLogView([failed, later, earlier]);
    expect(log.copyOf('h')?.id).toBe(earlier.id);
    expect(log.handled('<other@x>', 'f')?.id).toBe(earlier.id);
    expect(log.handled(earlier.message_key, null)?.id).toBe(earlier.id);
    expect(log.handled(earlier.message_key, 'another')).toBeUndefined();
  });

  it('sees the entries the batch adds: a copy, a reply and a duplicate later in the same batch', () => {
    const log = createLogView([]);
    const root = entry({
      message_key: '<root@x>',
      conversation_key: '<root@x>',
      fingerprint: 'f',
      action: 'created',
      work_item_id: 'item-1',
    });
    expect(log.has(root.source_ref)).toBe(false);
    log.add(root);
    expect(log.has(root.source_ref)).toBe(true);
    expect(log.copyOf(root.source_hash)?.id).toBe(root.id);
    expect(log.handled('<copy@x>', 'f')?.id).toBe(root.id);
    expect(log.conversation(['<root@x>'])).toBe('<root@x>');
    expect(log.threadItem(null, ['<root@x>'])).toBe('item-1');
    expect(log.threadItem('<root@x>', [])).toBe('item-1');
  });

  it("prefers the thread's created item to a note on another, and the newest among equals", () => {
    const noted = entry({
      conversation_key: 'c',
      action: 'noted',
      work_item_id: 'noted-item',
      created_at: '2026-01-03T00:00:00.000Z',
    });
    const old = entry({
      conversation_key: 'c',
      action: 'created',
      work_item_id: 'old-item',
      created_at: '2026-01-01T00:00:00.000Z',
    });
    const recent = entry({
      conversation_key: 'c',
      action: 'created',
      work_item_id: 'new-item',
      created_at: '2026-01-02T00:00:00.000Z',
    });
    const unrelated = entry({ conversation_key: 'd', action: 'created', work_item_id: 'other' });
    expect(createLogView([noted, old, recent, unrelated]).threadItem('c', [])).toBe('new-item');
    expect(createLogView([noted]).threadItem('c', [])).toBe('noted-item');
    expect(createLogView([entry({ conversation_key: 'c' })]).threadItem('c', [])).toBeUndefined();
  });
});
