// classify's wire vocabulary for the layers above and for clients: schemas and import-free lists only.

export { CATEGORIES, FALLBACK_CATEGORY, type ClassifyResult, type Priority } from './categories.js';
export { CLASSIFY_BODY_LIMIT, ClassifyRequestSchema, ClassifyResultSchema, type ClassifyRequest } from './schemas.js';
