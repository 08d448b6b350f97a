// Placeholder for `agentdesk mcp`: the MCP server on stdin/stdout, talking to a running
// agentdesk through the typed client. The MCP work (branch h/mcp) replaces this file.

export interface StdioServerOptions {
  /** AGENTDESK_URL: the work service to talk to. */
  baseUrl: string;
  /** AGENTDESK_TOKEN: the agent's token; who the agent is comes from it. */
  token: string | undefined;
  /** AGENTDESK_AGENT: the agent without a token (AUTH=off); also sent as X-User. */
  agent: string | undefined;
  /** AGENTDESK_USER (else the agent): the X-User header without a token. */
  user: string | undefined;
}

export async function runStdioServer(_options: StdioServerOptions): Promise<void> {
  throw new Error('agentdesk mcp: not yet (the MCP server is being built)');
}
