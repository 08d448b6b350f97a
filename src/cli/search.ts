import { InvalidArgumentError, type Command } from 'commander';
import { SEARCH_PAGE, SEARCH_SORTS, type SearchResult } from '../search/contract.js';
import type { CliContext } from './context.js';
import { json } from './format.js';

// `agentdesk search "…"`: the desk's search (docs/search.md) as lines a person reads: the item,
// where it matched, and the passage with the matched words in brackets instead of <mark>.

function sortOrder(value: string): (typeof SEARCH_SORTS)[number] {
  if ((SEARCH_SORTS as readonly string[]).includes(value)) return value as (typeof SEARCH_SORTS)[number];
  throw new InvalidArgumentError(`one of ${SEARCH_SORTS.join(', ')}`);
}

function pageSize(value: string): number {
  const n = Number(value);
  if (Number.isInteger(n) && n >= 1 && n <= SEARCH_PAGE.max) return n;
  throw new InvalidArgumentError(`a whole number from 1 to ${SEARCH_PAGE.max}`);
}

/** The passage as plain text: marks as [brackets], entities back to their characters. */
export function plainPassage(html: string): string {
  return html
    .replace(/<mark>/g, '[')
    .replace(/<\/mark>/g, ']')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

function lines(result: SearchResult): string {
  const { item } = result;
  const head = `${item.id.slice(0, 8)}  ${item.status}  ${item.type}  p${item.priority}  ${item.description.split('\n')[0]}`;
  const where = `    in ${result.matched_in.join(', ') || '(filters)'}`;
  const passage = result.highlight ? `: ${plainPassage(result.highlight.html)}` : '';
  return `${head}\n${where}${passage}\n`;
}

export function registerSearchCommand(program: Command, context: CliContext): void {
  const { io } = context;
  program
    .command('search')
    .description(
      'Search items, their conversations and mail (words, "phrases", -word, word*, status: type: project: by: is: created: priority:)',
    )
    .argument('<query>', 'the query; quote it in the shell')
    .option('--sort <order>', `${SEARCH_SORTS.join(' or ')} (default relevance)`, sortOrder)
    .option('--limit <n>', `results per page (default ${SEARCH_PAGE.default})`, pageSize)
    .option('--cursor <cursor>', 'the next page, as printed after the last one')
    .option('--json', 'the results and next_cursor as JSON')
    .action(
      async (
        q: string,
        options: { sort?: 'relevance' | 'newest'; limit?: number; cursor?: string; json?: boolean },
      ) => {
        const page = await context.work().search({
          q,
          ...(options.sort !== undefined && { sort: options.sort }),
          ...(options.limit !== undefined && { limit: options.limit }),
          ...(options.cursor !== undefined && { cursor: options.cursor }),
        });
        if (options.json) return io.out(json(page));
        if (page.results.length === 0) return io.out('No items match.\n');
        io.out(page.results.map(lines).join(''));
        if (page.next_cursor) io.out(`More: --cursor ${page.next_cursor}\n`);
      },
    );
}
