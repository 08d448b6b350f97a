import { sql } from 'kysely';
import type { ConversationStatements } from './port.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import { crossDialectStatements } from './cross-dialect.js';

// The conversation's store on PostgreSQL: the statements shared by both databases, and each comment write as one
// statement (a data-modifying CTE writes the comment and moves its item's counter together), so
// an agent's progress comment costs one round trip.

export function postgresConversationStatements(db: DatabaseHandle): ConversationStatements {
  return {
    ...crossDialectStatements(db),

    async insertComment(row) {
      await sql`WITH comment AS (
          INSERT INTO work_comments (id, work_item_id, author, role, kind, body, links, created_at)
          VALUES (${row.id}::uuid, ${row.work_item_id}::uuid, ${row.author}, ${row.role}, ${row.kind}, ${row.body}, ${row.links}, ${row.created_at}::timestamptz)
          RETURNING work_item_id
        )
        UPDATE work_items SET comment_count = comment_count + 1 WHERE id = (SELECT work_item_id FROM comment)`.execute(
        db,
      );
    },

    async deleteComment(workItemId, commentId) {
      const { rows } = await sql<{ id: string }>`WITH gone AS (
          DELETE FROM work_comments WHERE id = ${commentId}::uuid AND work_item_id = ${workItemId}::uuid RETURNING work_item_id
        )
        UPDATE work_items SET comment_count = comment_count - 1 WHERE id = (SELECT work_item_id FROM gone) RETURNING id`.execute(
        db,
      );
      return rows.length === 1;
    },
  };
}
