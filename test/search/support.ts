import { sql } from 'kysely';
import type { TestApp } from '../support/apps.js';
import { call } from '../support/http.js';
import { CORPUS } from './corpus.js';

// Loads the corpus through HTTP (projects, items, comments) and its mail as intake rows, the
// way intake writes them; returns each label's item id.

const HOURS_3 = 3 * 3_600_000;

export async function loadCorpus(
  t: TestApp,
  as: { admin: Record<string, string>; mia: Record<string, string> },
  advance: (ms: number) => void,
): Promise<Record<string, string>> {
  const projects: Record<string, string> = {};
  for (const name of ['Atlas', 'Borealis']) {
    const created = await call(t.app, 'POST', '/projects', { name }, as.admin);
    if (created.status !== 201) throw new Error(created.text);
    projects[name] = created.body.id;
  }
  const mailbox = '00000000-0000-4000-8000-00000000000a';
  const at = new Date().toISOString();
  await sql`INSERT INTO intake_mailboxes (id, name, kind, auth, folder, enabled, rules, state, state_changed_at, created_at, updated_at)
    VALUES (${mailbox}, 'desk', 'imap', 'password', 'INBOX', 0, '[]', 'disabled', ${at}, ${at}, ${at})`.execute(
    t.database.kysely,
  );
  const ids: Record<string, string> = {};
  for (const [n, item] of CORPUS.entries()) {
    advance(HOURS_3);
    const created = await call(
      t.app,
      'POST',
      '/work',
      {
        type: item.type,
        description: item.description,
        priority: item.priority,
        ...(item.payload && { payload: item.payload }),
        ...(item.project && { project_id: projects[item.project] }),
      },
      item.by_mia ? as.mia : as.admin,
    );
    if (created.status !== 201) throw new Error(created.text);
    ids[item.label] = created.body.id;
    for (const body of item.comments ?? []) {
      const comment = await call(t.app, 'POST', `/work/${created.body.id}/comments`, { body }, as.admin);
      if (comment.status !== 201) throw new Error(comment.text);
    }
    if (item.mail) {
      await sql`INSERT INTO intake_messages (id, mailbox_id, source, source_ref, source_hash, message_key, sender, subject,
          status, action, work_item_id, created_at)
        VALUES (${`00000000-0000-4000-9000-${String(n).padStart(12, '0')}`}, ${mailbox}, 'imap', ${`imap:1:${n}`},
          ${`hash-${n}`}, ${`<m${n}@example.org>`}, 'desk@example.org', ${item.mail}, 'done', 'noted',
          ${created.body.id}, ${at})`.execute(t.database.kysely);
    }
  }
  return ids;
}
