import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { A2A_PROTOCOL_VERSION } from '@a2a-js/sdk';

// The agent card: who the desk is to A2A clients, where its bindings answer (JSON-RPC 1.0 and 0.3, HTTP+JSON 1.0), how a caller
// proves who it is (the desk's bearer tokens; none under AUTH=off), and one skill per work type.

/** JSON-RPC at POST /a2a; HTTP+JSON under /a2a (/a2a/message:send, /a2a/tasks/{id}, …). */
export const A2A_PATHS = { jsonRpc: '/a2a', rest: '/a2a', card: '/.well-known/agent-card.json' } as const;
/** v0.3 clients speak JSON-RPC through the SDK's compatibility layer. */
const LEGACY_VERSION = '0.3';
/** How long the skills read from the desk's types are reused. */
const SKILLS_TTL_MS = 30_000;
const MAX_SKILLS = 100;

export interface CardOptions {
  version: string;
  authOn: boolean;
  /** A2A_SKILLS; empty: the types the desk knows. */
  skills: readonly string[];
  knownTypes: () => Promise<string[]>;
  now: () => Date;
}

function skill(type: string): AgentSkill {
  return {
    id: type,
    name: type,
    description: `Work of type ${type}, done by whichever agent or person takes it on the desk`,
    tags: [type],
    examples: [],
    inputModes: ['text/plain', 'application/json'],
    outputModes: ['text/plain', 'text/uri-list'],
    securityRequirements: [],
  };
}

export function createCards(options: CardOptions) {
  let cached: { types: string[]; until: number } | null = null;

  async function types(): Promise<string[]> {
    if (options.skills.length > 0) return [...options.skills];
    const now = options.now().getTime();
    if (cached && cached.until > now) return cached.types;
    const known = (await options.knownTypes()).slice(0, MAX_SKILLS);
    cached = { types: known, until: now + SKILLS_TTL_MS };
    return known;
  }

  /** The card as served from `base`, the desk's address as the caller reached it. */
  async function card(base: string): Promise<AgentCard> {
    const bearer = {
      scheme: {
        $case: 'httpAuthSecurityScheme' as const,
        value: { description: 'An agentdesk API token (agentdesk token create)', scheme: 'Bearer', bearerFormat: '' },
      },
    };
    return {
      name: 'agentdesk',
      description:
        'A work desk for AI and human agents: a task sent here is a work item, done by whichever agent or person takes it; a question to the requester is INPUT_REQUIRED.',
      supportedInterfaces: [
        {
          url: `${base}${A2A_PATHS.jsonRpc}`,
          protocolBinding: 'JSONRPC',
          tenant: '',
          protocolVersion: A2A_PROTOCOL_VERSION,
        },
        {
          url: `${base}${A2A_PATHS.rest}`,
          protocolBinding: 'HTTP+JSON',
          tenant: '',
          protocolVersion: A2A_PROTOCOL_VERSION,
        },
        { url: `${base}${A2A_PATHS.jsonRpc}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: LEGACY_VERSION },
      ],
      provider: undefined,
      version: options.version,
      documentationUrl: `${base}/docs`,
      capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: options.authOn },
      securitySchemes: options.authOn ? { bearer } : {},
      securityRequirements: options.authOn ? [{ schemes: { bearer: { list: [] } } }] : [],
      defaultInputModes: ['text/plain', 'application/json'],
      defaultOutputModes: ['text/plain', 'text/uri-list'],
      skills: (await types()).map(skill),
      signatures: [],
    };
  }

  return { card, types };
}

export type Cards = ReturnType<typeof createCards>;
