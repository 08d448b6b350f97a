import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type JSONRPCMessage,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { roleMay } from '../auth/contract.js';
import { createAjv } from '../shared/http/validation.js';
import { ProblemError } from '../client/errors.js';
import type { WorkClient } from '../client/work-client.js';
import { refusalText } from './refusals.js';
import { CONVERSATION_TOOLS } from './conversation-tools.js';
import { SCHEDULE_TOOLS } from './schedule-tools.js';
import { type Caller, TOOLS, type ToolDefinition, latestComments } from './tools.js';

// One MCP server over the tools, for one caller: the HTTP route builds one per request, stdio one per process.

export const SERVER_INFO = { name: 'agentdesk', title: 'agentdesk work desk', version: '0.1.0' } as const;

const INSTRUCTIONS = [
  'agentdesk hands out work items to agents, one at a time, on a lease.',
  'Loop: claim_next_work (wait_s to wait) → work on the item, calling heartbeat before lease_expires_at →',
  'complete_work (notes, result) or fail_work (reason); an item that needs review is sent for review, and a person approves or returns it.',
  "add_note records progress on the item's timeline, add_comment posts a comment with links for the people following it.",
  'When you cannot go on well without a person (a missing fact, a decision with consequences, access you lack), ask_person,',
  'with options when you can; it blocks the item and waits up to wait_s; get_answer waits again. Do not ask what you can find out yourself.',
  'submit_plan splits work into steps that wait for each other; list_children shows them.',
  'A refused call is a tool error whose text says what to do next.',
].join(' ');

const RESOURCE_TEMPLATE = 'agentdesk://work/{id}';
const RESOURCE_PATTERN = /^agentdesk:\/\/work\/([0-9a-fA-F-]{36})$/;
/** Items shown in resources/list: the caller's open ones. */
const OPEN_STATUSES = 'dispatched,in_progress,blocked';
const RESOURCE_LIST_SIZE = 50;

// The API's own Ajv set-up, so a tool refuses what the route behind it would.
const ajv = createAjv();
// The SDK's Server builds an Ajv of its own unless given a validator (it uses it only for
// elicitation, which we do not send): one shared instance spares every request that cost.
const SHARED_VALIDATOR = new AjvJsonSchemaValidator(ajv);

interface CompiledTool {
  definition: ToolDefinition;
  validate: ValidateFunction;
  listing: Tool;
}

// Compiled once per process: a server per request must cost next to nothing.
const COMPILED = new Map<string, CompiledTool>(
  [...TOOLS, ...CONVERSATION_TOOLS, ...SCHEDULE_TOOLS].map((definition) => [
    definition.name,
    {
      definition,
      validate: ajv.compile(definition.input),
      listing: {
        name: definition.name,
        title: definition.title,
        description: definition.description,
        inputSchema: definition.input as Tool['inputSchema'],
        outputSchema: definition.output as Tool['outputSchema'],
        annotations: { title: definition.title, ...definition.annotations },
      },
    },
  ]),
);

const ALL_LISTINGS = [...COMPILED.values()].map((tool) => tool.listing);

function argumentErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((error) => {
      const at = error.instancePath.slice(1).replace(/\//g, '.');
      if (error.keyword === 'required')
        return `${[at, error.params.missingProperty].filter(Boolean).join('.')} is required`;
      if (error.keyword === 'additionalProperties') {
        return `${[at, error.params.additionalProperty].filter(Boolean).join('.')} is not an argument of this tool`;
      }
      return `${at || 'arguments'} ${error.message ?? 'is invalid'}`;
    })
    .join('; ');
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const kindOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;

/** Why a tools/call request's params are not what MCP defines; null when they are (or it is another message). */
function toolCallRefusal(message: JSONRPCMessage): string | null {
  if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) return null;
  const params: unknown = message.params;
  if (!isPlainObject(params))
    return `Invalid params: tools/call needs params {"name": …, "arguments": {…}}, not ${kindOf(params)}.`;
  if (typeof params.name !== 'string')
    return `Invalid params: name must be a tool's name (a string), not ${kindOf(params.name)}.`;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) {
    return `Invalid params: arguments must be an object of named arguments, not ${kindOf(params.arguments)}; leave it out for none.`;
  }
  return null;
}

/**
 * The SDK's server, with tools/call params that are not what MCP defines (`"arguments": null`, a
 * string, an array; no name) refused before the SDK parses them: its parser answers -32603 (an
 * internal error) with a dump of its schema's complaints, where the caller made the mistake
 * (-32602) and one line says what it was, as a bad argument's tool error does.
 */
class McpServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const refusal = toolCallRefusal(message);
      if (refusal === null || !('id' in message)) return deliver?.(message, extra);
      const answer: JSONRPCMessage = {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: ErrorCode.InvalidParams, message: refusal },
      };
      transport.send(answer).catch((error: unknown) => this.onerror?.(error as Error));
    };
  }
}

export interface McpServerDeps {
  client: WorkClient;
  /** The caller; a promise so stdio can ask the service who its token is, once, when first needed. */
  caller: () => Promise<Caller>;
  onError?: (error: Error) => void;
}

/**
 * The SDK's low-level `Server`, not `McpServer`, which takes its schemas as zod: ours are the API's TypeBox
 * schemas, JSON Schema already, and a second, hand-copied set in zod could drift.
 */
export function createMcpServer({ client, caller, onError }: McpServerDeps): Server {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: SHARED_VALIDATOR,
  });
  if (onError) server.onerror = onError;

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    // Only the tools the caller's role may use; when the service cannot say who that is, all of them.
    const who = await caller().catch(() => null);
    if (!who) return { tools: ALL_LISTINGS };
    return { tools: ALL_LISTINGS.filter((tool) => roleMay(who.role, COMPILED.get(tool.name)!.definition.access)) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = COMPILED.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    // The request was parsed for this call alone: validation may fill in defaults in place.
    const args = request.params.arguments ?? {};
    if (!tool.validate(args)) {
      return toolError(
        `Invalid arguments: ${argumentErrors(tool.validate.errors)}. Fix them and call ${tool.definition.name} again.`,
      );
    }
    try {
      const structured = await tool.definition.run(args, { client, caller: await caller(), signal: extra.signal });
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    } catch (error) {
      return toolError(refusalText(error, tool.definition.name));
    }
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: RESOURCE_TEMPLATE,
        name: 'work-item',
        title: 'Work item',
        description:
          'A work item as JSON, with its dispatch log and its latest comments (latest_comments, newest first)',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => {
    try {
      const who = await caller();
      const page = await client.listWork(
        { agent: who.agent, status: OPEN_STATUSES, sort: 'priority', limit: RESOURCE_LIST_SIZE },
        { signal: extra.signal },
      );
      return {
        resources: page.items.map((item) => ({
          uri: `agentdesk://work/${item.id}`,
          name: `${item.type}: ${item.description.slice(0, 80)}`,
          description: `${item.status}, priority ${item.priority}`,
          mimeType: 'application/json',
        })),
      };
    } catch (error) {
      throw new McpError(ErrorCode.InternalError, refusalText(error, 'resources/list'));
    }
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const match = RESOURCE_PATTERN.exec(request.params.uri);
    if (!match) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown resource ${request.params.uri}; work items are ${RESOURCE_TEMPLATE}`,
      );
    }
    try {
      const id = match[1] as string;
      const item = await client.getWork(id, { signal: extra.signal });
      const latest_comments = await latestComments(client, id, extra.signal);
      return {
        contents: [
          { uri: request.params.uri, mimeType: 'application/json', text: JSON.stringify({ ...item, latest_comments }) },
        ],
      };
    } catch (error) {
      if (error instanceof ProblemError && error.status === 404) {
        // -32002: the MCP specification's code for a resource that does not exist.
        throw new McpError(-32002, `Resource not found: ${request.params.uri}`, { uri: request.params.uri });
      }
      throw new McpError(ErrorCode.InternalError, refusalText(error, 'resources/read'));
    }
  });

  return server;
}
