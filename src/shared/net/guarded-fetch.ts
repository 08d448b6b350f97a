// The fetch that caller-chosen hosts are reached through: the address a socket opens to is decided and
// checked in one step, so a DNS answer that changes after ssrf.ts's check (rebinding) cannot reach inside.

import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import {
  Agent,
  buildConnector,
  fetch as undiciFetch,
  type RequestInfo as UndiciRequestInfo,
  type RequestInit as UndiciRequestInit,
} from 'undici';
import { type AllowList, checkAddresses, EMPTY_ALLOW_LIST, type HostResolver } from './ssrf.js';

/** The shape both LLM SDKs accept as their `fetch` option. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The socket gets exactly the addresses that passed the check, so there is no second lookup to race. */
/** Throws when a host's addresses may not be connected to; each caller words its own refusal. */
export type AddressCheck = (hostname: string, addresses: readonly string[]) => void;

const baseUrlCheck =
  (allow: AllowList): AddressCheck =>
  (hostname, addresses) =>
    checkAddresses(hostname, addresses, allow);

export function buildGuardedLookup(
  resolve: HostResolver,
  check: AddressCheck = baseUrlCheck(EMPTY_ALLOW_LIST),
): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        try {
          check(hostname, addresses);
        } catch (error) {
          callback(error as NodeJS.ErrnoException, '', 0);
          return;
        }
        const entries: LookupAddress[] = addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter((entry) => !options.family || options.family === entry.family);
        if (entries.length === 0) {
          callback(
            Object.assign(new Error(`host ${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
          return;
        }
        if (options.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      () => callback(Object.assign(new Error(`host ${hostname} cannot be resolved`), { code: 'ENOTFOUND' }), '', 0),
    );
  };
}

export function createGuardedFetch(resolve: HostResolver, allow: AllowList = EMPTY_ALLOW_LIST): FetchLike {
  const dispatcher = new Agent({ connect: buildGuardedConnector(resolve, baseUrlCheck(allow)) });
  // The SDKs type fetch with the DOM's Request and Response; undici's are the same at run time.
  return (input, init) =>
    undiciFetch(input as UndiciRequestInfo, {
      ...(init as UndiciRequestInit),
      dispatcher,
    }) as unknown as Promise<Response>;
}

/** undici's connector with the check applied to every socket it opens, address literals included. */
export function buildGuardedConnector(resolve: HostResolver, check: AddressCheck): buildConnector.connector {
  const connectTo = buildConnector({ lookup: buildGuardedLookup(resolve, check) });
  // Node opens a socket to an address literal without calling lookup, and a redirect can name
  // one, so literals are checked here before the connector sees them.
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(host)) {
      try {
        check(host, [host]);
      } catch (error) {
        callback(error as Error, null);
        return;
      }
    }
    connectTo(options, callback);
  };
}
