// intake's wire vocabulary for the layers above and for clients: schemas and import-free lists only.

export {
  ConnectionTestSchema,
  CreateMailboxSchema,
  ImportAcceptedSchema,
  IntakeMessageSchema,
  MailboxSchema,
  UpdateMailboxSchema,
} from './schemas.js';
