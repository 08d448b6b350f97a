import { Ajv, type Options as AjvOptions } from 'ajv';
import addFormatsModule from 'ajv-formats';

// The one Ajv set-up: the HTTP routes, the MCP tools and the CLI's database path all check
// input with it, so each refuses what the others refuse (dates no store can keep included).

// ajv-formats is CommonJS with a default export; NodeNext sees the module object.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats)) as AddFormats;

type FormatCheck = (text: string) => boolean;

/** The years both stores hold in ISO 8601 form: PostgreSQL has no year 0 and SQLite compares text. */
const FIRST_TIME = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * date-time as ajv-formats reads RFC 3339, and also a time JavaScript's Date can hold, in the
 * years 0001–9999 (UTC): ajv-formats takes a leap second (23:59:60) and an offset without minutes
 * (+16), which Date reads as an invalid date, and year 0, which PostgreSQL refuses; the services
 * turn every accepted time into a Date and store it. Refused here, such a time is a 422 on its
 * field instead of a RangeError or a database error, and a 500.
 */
function addStorableDateTime(ajv: Ajv): void {
  const rfc3339 = ajv.formats['date-time'] as { validate: FormatCheck } | FormatCheck | undefined;
  const wellFormed: FormatCheck = typeof rfc3339 === 'function' ? rfc3339 : (rfc3339?.validate ?? (() => true));
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) => {
      if (!wellFormed(text)) return false;
      const at = Date.parse(text);
      return at >= FIRST_TIME && at <= LAST_TIME;
    },
  });
}

/**
 * An Ajv with every error listed, defaults filled in, unknown fields kept (the schemas refuse
 * them), the standard formats and the storable date-time. `coerceTypes` only for query strings.
 */
export function createAjv(options: AjvOptions = {}): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    coerceTypes: false,
    ...options,
  });
  addFormats(ajv);
  addStorableDateTime(ajv);
  return ajv;
}
