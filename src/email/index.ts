// email's entry: what the layers above and the composition root may import of it (wire vocabulary: contract.ts).

export { prepareBody } from './body-text.js';
export { renderHtml } from './html-to-text.js';
export {
  hasContent,
  normalizeEmail,
  type Email,
  type EmailInput,
  type GraphEmailAddress,
  type GraphMessage,
  type Mailbox,
} from './normalize.js';
