// notify's wire vocabulary for the layers above and for clients: schemas and import-free lists only.

export {
  NOTIFICATION_PAGE,
  NotificationSchema,
  NotificationsQuerySchema,
  type Notification,
  type NotificationsQuery,
} from './outbox/schemas.js';
export { NOTIFICATION_KINDS, NOTIFICATION_STATUSES } from './outbox/tables.js';
