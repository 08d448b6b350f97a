// Placeholder for the Slack-compatible body; the webhooks-slack lane owns the real one.

export function slackBody(
  event: { type: string; data: unknown },
  _publicUrl: string | null,
): { text: string; blocks: unknown[] } {
  return { text: event.type, blocks: [] };
}
