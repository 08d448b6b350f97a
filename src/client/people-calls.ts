import type { Person, PutPerson } from '../notify/contract.js';
import { type CallOptions, type Requester } from './http.js';

// The typed client's calls for people's profiles: where the desk tells a person of questions and
// reviews. A member reaches its own profile, an admin everyone's.

const path = (strings: TemplateStringsArray, ...names: string[]) =>
  strings.reduce((out, part, i) => out + part + (i < names.length ? encodeURIComponent(names[i] as string) : ''), '');

export function peopleCalls(request: Requester) {
  return {
    /** Every profile (admins); a member's list holds its own. */
    async listPeople(call: CallOptions = {}): Promise<Person[]> {
      return (await request<Person[]>('GET', '/people', call)).body;
    },

    async getPerson(name: string, call: CallOptions = {}): Promise<Person> {
      return (await request<Person>('GET', path`/people/${name}`, call)).body;
    },

    /** Creates or replaces the whole profile; what `body` leaves out is cleared. */
    async putPerson(name: string, body: PutPerson, call: CallOptions = {}): Promise<Person> {
      return (await request<Person>('PUT', path`/people/${name}`, { body, ...call })).body;
    },

    async deletePerson(name: string, call: CallOptions = {}): Promise<void> {
      await request('DELETE', path`/people/${name}`, call);
    },
  };
}
