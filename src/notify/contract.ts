// notify's wire vocabulary for the layers above and for clients: schemas and import-free lists only.

export {
  MAX_EMAIL_LENGTH,
  NOTIFY_MODES,
  PersonParamsSchema,
  PersonSchema,
  PutPersonSchema,
  type NotifyMode,
  type Person,
  type PutPerson,
} from './people/schemas.js';
