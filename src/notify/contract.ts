// notify's wire vocabulary for the layers above and for clients: schemas and import-free lists only.

export {
  NOTIFICATION_KINDS,
  NOTIFICATION_STATUSES,
  NOTIFICATION_PAGE,
  NotificationSchema,
  NotificationsQuerySchema,
  type Notification,
  type NotificationsQuery,
} from './outbox/schemas.js';
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
