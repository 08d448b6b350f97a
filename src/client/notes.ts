// Notes are one text field that the API replaces whole; the clients append to it. Shared by
// the typed client (so the CLI) and MCP, so a retried move never writes its note twice.

/**
 * `text` below `notes`. When the call repeats a move already made (a retry after a lost
 * answer), a note that already ends the notes is not written twice.
 */
export function withNote(notes: string | null, text: string, repeat: boolean): string {
  if (!notes) return text;
  if (repeat && (notes === text || notes.endsWith(`\n\n${text}`))) return notes;
  return `${notes}\n\n${text}`;
}
