// auth's wire vocabulary for the layers above and for clients: schemas and import-free lists only.

export { ACCESS, CSRF_HEADER, roleMay, ROLES, type Access, type Role } from './roles.js';
export {
  CreatedTokenSchema,
  CreateTokenSchema,
  PrincipalSchema,
  SessionSchema,
  SignInSchema,
  TokenRecordSchema,
  type CreateToken,
  type SessionView,
  type TokenRecord,
} from './schemas.js';
