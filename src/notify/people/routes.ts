import { Type } from 'typebox';
import { ACCESS } from '../../auth/contract.js';
import { withHeaders } from '../../shared/http/openapi.js';
import { problemResponses } from '../../shared/http/schemas.js';
import type { HttpApp } from '../../shared/http/types.js';
import { PersonParamsSchema, PersonSchema, PutPersonSchema } from './schemas.js';
import type { PeopleService } from './service.js';

// People's routes: thin, each one call of the service. Only people (members, admins) reach them;
// the service holds a member to its own profile.

export function registerPeopleRoutes(app: HttpApp, people: PeopleService): void {
  const tags = ['people'];
  const config = { access: ACCESS.answer };

  app.put(
    '/people/:name',
    {
      config,
      schema: {
        operationId: 'putPerson',
        tags,
        summary: 'Create or replace a profile: where the desk writes to this person and how often (own, or admin)',
        params: PersonParamsSchema,
        body: PutPersonSchema,
        response: {
          200: PersonSchema,
          201: withHeaders(PersonSchema, 'Location'),
          ...problemResponses(400, 403, 404, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { person, created } = await people.put(request.params.name, request.body, request.principal);
      if (!created) return person;
      return reply
        .code(201)
        .header('location', `/people/${encodeURIComponent(person.name)}`)
        .send(person);
    },
  );

  app.get(
    '/people',
    {
      config,
      schema: {
        operationId: 'listPeople',
        tags,
        summary: "Every profile, by name (admins); a member's list holds its own",
        response: { 200: Type.Array(PersonSchema) },
      },
    },
    async (request) => people.list(request.principal),
  );

  app.get(
    '/people/:name',
    {
      config,
      schema: {
        operationId: 'getPerson',
        tags,
        summary: 'One profile (own, or admin)',
        params: PersonParamsSchema,
        response: { 200: PersonSchema, ...problemResponses(403, 404) },
      },
    },
    async (request) => people.get(request.params.name, request.principal),
  );

  app.delete(
    '/people/:name',
    {
      config,
      schema: {
        operationId: 'deletePerson',
        tags,
        summary: 'Delete a profile: the desk tells this person nothing more (own, or admin)',
        params: PersonParamsSchema,
        response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await people.remove(request.params.name, request.principal);
      return reply.code(204).send(null);
    },
  );
}
