// notify's entry: what the layers above and the composition root may import of it (wire
// vocabulary: contract.ts). People (profiles, who is told) live in people/.

export { NotOwnProfile, PersonNotFound, UnknownTimeZone } from './people/errors.js';
export {
  recipientsFor,
  type Recipient,
  type RecipientItem,
  type RecipientProject,
  type RecipientQuestion,
} from './people/recipients.js';
export { registerPeopleRoutes } from './people/routes.js';
export { createPeopleService, isKnownTimeZone, type PeopleService } from './people/service.js';
export { createPeopleStore } from './people/store/index.js';
export type { PeopleStore, PeopleTables, PersonRow } from './people/store/port.js';
