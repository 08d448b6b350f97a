import { sql } from 'kysely';
import type { ConversationStatements } from './port.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import { crossDialectStatements } from './cross-dialect.js';

// The conversation's store on SQLite: the statements shared by both databases, and the comment writes as two
// statements each (the comment, then its item's counter). In-process and inside the caller's
// transaction, two statements cost nothing a round trip would.

export function sqliteConversationStatements(db: DatabaseHandle): ConversationStatements {
  return {
    ...crossDialectStatements(db),

    async insertComment(row) {
      await db.insertInto('work_comments').values(row).execute();
      await db
        .updateTable('work_items')
        .set({ comment_count: sql`comment_count + 1` })
        .where('id', '=', row.work_item_id)
        .execute();
    },

    async deleteComment(workItemId, commentId) {
      const deleted = await db
        .deleteFrom('work_comments')
        .where('id', '=', commentId)
        .where('work_item_id', '=', workItemId)
        .executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await db
        .updateTable('work_items')
        .set({ comment_count: sql`comment_count - 1` })
        .where('id', '=', workItemId)
        .execute();
      return true;
    },
  };
}
