import { ACCESS } from '../../auth/contract.js';
import { withHeaders } from '../../shared/http/openapi.js';
import type { HttpApp } from '../../shared/http/types.js';
import { renderOutcome } from './page.js';
import {
  AnswerLinkFormSchema,
  AnswerLinkParamsSchema,
  AnswerLinkQuerySchema,
  HtmlOrProblemResponse,
  HtmlPageResponse,
} from './schemas.js';
import type { AnswerLinks, LinkOutcome, LinkRefusal } from './service.js';
import type { FastifyReply } from 'fastify';

// GET and POST /answer/{token}: public (the token is the credential), thin, HTML. A cross-site
// POST never gets here: the access hook refuses it for every route, whatever its access level.

const FORM_TYPE = 'application/x-www-form-urlencoded';
const FORM_BODY_LIMIT = 16 * 1024;
/**
 * No script, nothing fetched, the form posts only here. `same-origin` referrers, not `no-referrer`:
 * with that, browsers send `Origin: null` on the form's POST and the cross-site check refuses it.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
} as const;

const REFUSAL_STATUS: Record<LinkRefusal, number> = {
  // As any path that names nothing: a link that is not ours names no question.
  malformed: 404,
  forged: 404,
  expired: 410,
  used: 410,
  moot: 410,
  gone: 404,
  forbidden: 403,
};

function statusOf(outcome: LinkOutcome): number {
  if (outcome.kind === 'refused') return REFUSAL_STATUS[outcome.reason];
  return outcome.kind === 'form' && outcome.problem !== null ? 422 : 200;
}

function sendPage(reply: FastifyReply, outcome: LinkOutcome): FastifyReply {
  return reply
    .code(statusOf(outcome))
    .headers(PAGE_HEADERS)
    .type('text/html; charset=utf-8')
    .send(renderOutcome(outcome));
}

const pages = {
  200: withHeaders(HtmlPageResponse('The page: the question and its form, or the answer recorded'), 'Cache-Control'),
  403: HtmlOrProblemResponse('A review of the person’s own work'),
  404: HtmlOrProblemResponse('A damaged or forged link, or its question or item no longer exists'),
  410: HtmlOrProblemResponse('The link expired, or its question was answered or closed'),
} as const;

export async function registerAnswerLinkRoutes(app: HttpApp, links: AnswerLinks): Promise<void> {
  const tags = ['conversation'];
  app.get(
    '/answer/:token',
    {
      config: { access: ACCESS.public, secretInPath: true },
      schema: {
        operationId: 'showAnswerLink',
        tags,
        summary: "An answer link's page: the question, its item, the options and a text box; changes nothing",
        params: AnswerLinkParamsSchema,
        querystring: AnswerLinkQuerySchema,
        response: pages,
      },
    },
    async (request, reply) => sendPage(reply, await links.show(request.params.token, request.query.option)),
  );

  // The form's body type, in a scope of its own so no other route takes it.
  await app.register(async (plugin) => {
    const scope = plugin as unknown as HttpApp;
    scope.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    scope.post(
      '/answer/:token',
      {
        bodyLimit: FORM_BODY_LIMIT,
        config: { access: ACCESS.public, secretInPath: true },
        schema: {
          operationId: 'answerByLink',
          tags,
          summary: 'Answers the question as the person the link names (no session: the signed token is the credential)',
          consumes: [FORM_TYPE],
          params: AnswerLinkParamsSchema,
          body: AnswerLinkFormSchema,
          response: { ...pages, 422: HtmlOrProblemResponse('The form again, saying what the answer lacks') },
        },
      },
      async (request, reply) => sendPage(reply, await links.answer(request.params.token, request.body)),
    );
  });
}
