import { useState } from 'preact/hooks';
import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/use-load.ts';

// Ready-to-paste MCP configurations for one credential: over HTTP (POST /mcp on this desk) and
// over stdio (the CLI of this install, by its absolute path: nothing puts `agentdesk` on the
// PATH of a fresh clone). The server tells an admin where its CLI is (GET /ui-api/mcp-setup).

export type McpCredential = { kind: 'token'; token: string } | { kind: 'user'; user: string };

interface McpSetup {
  node: string;
  cli: string;
  cli_built: boolean;
}

/** This desk's address as the browser reached it (the API shares the UI's origin and path). */
function deskUrl(): string {
  return new URL('.', location.href.split('#')[0]).href.replace(/\/$/, '');
}

export function httpConfig(credential: McpCredential, base = deskUrl()): string {
  const headers =
    credential.kind === 'token' ? { Authorization: `Bearer ${credential.token}` } : { 'X-User': credential.user };
  return JSON.stringify({ mcpServers: { agentdesk: { type: 'http', url: `${base}/mcp`, headers } } }, null, 2);
}

export function stdioConfig(credential: McpCredential, setup: McpSetup, base = deskUrl()): string {
  const env =
    credential.kind === 'token'
      ? { AGENTDESK_URL: base, AGENTDESK_TOKEN: credential.token }
      : { AGENTDESK_URL: base, AGENTDESK_AGENT: credential.user };
  return JSON.stringify({ mcpServers: { agentdesk: { command: setup.node, args: [setup.cli, 'mcp'], env } } }, null, 2);
}

function Snippet(props: { title: string; hint: string; text: string; testId: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <div class="stack tight snippet">
      <div class="row between wrap">
        <h3>{props.title}</h3>
        <button
          type="button"
          aria-label={`Copy the ${props.title} configuration`}
          onClick={() =>
            navigator.clipboard.writeText(props.text).then(
              () => setCopied('yes'),
              () => setCopied('no'),
            )
          }
        >
          Copy
        </button>
      </div>
      <p class="muted small">{props.hint}</p>
      <pre class="config" data-testid={props.testId} tabIndex={0}>
        {props.text}
      </pre>
      {copied === 'yes' && <p class="ok small">Copied.</p>}
      {copied === 'no' && (
        <p class="muted small">The browser refused the clipboard; select the text and copy it by hand.</p>
      )}
    </div>
  );
}

/** Both configurations for `credential`; the stdio one once the server has said where its CLI is. */
export function McpConfig({ credential }: { credential: McpCredential }) {
  const setup = useLoad<McpSetup>(
    'mcp-setup',
    async (signal) => (await api<McpSetup>('GET', '/ui-api/mcp-setup', undefined, signal)).data,
  );
  const who = credential.kind === 'token' ? 'this token' : `the agent “${credential.user}”`;
  return (
    <section class="stack" aria-label="MCP configuration">
      <Snippet
        title="MCP over HTTP"
        hint={`For Claude Code (.mcp.json), Cursor (~/.cursor/mcp.json) and other clients that speak Streamable HTTP; acts as ${who}.`}
        text={httpConfig(credential)}
        testId="mcp-http"
      />
      {setup.data ? (
        <Snippet
          title="MCP over stdio"
          hint={`For Claude Desktop and clients that start a process: runs this install’s CLI with the Node.js that runs the desk${
            setup.data.cli_built ? '' : ' (not built yet: run npm run build first)'
          }.`}
          text={stdioConfig(credential, setup.data)}
          testId="mcp-stdio"
        />
      ) : (
        <p class="muted small">
          {setup.error
            ? `The stdio configuration is unavailable: ${setup.error.detail}`
            : 'Loading the stdio configuration…'}
        </p>
      )}
    </section>
  );
}
