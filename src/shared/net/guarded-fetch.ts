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
import { checkAddresses, type HostResolver } from './ssrf.js';

/** The shape both LLM SDKs accept as their `fetch` option. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The socket gets exactly the addresses that passed the check, so there is no second lookup to race. */
export function buildGuardedLookup(resolve: HostResolver): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        try {
          checkAddresses(hostname, addresses);
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

export function createGuardedFetch(resolve: HostResolver): FetchLike {
  const connectTo = buildConnector({ lookup: buildGuardedLookup(resolve) });
  const dispatcher = new Agent({
    // Node opens a socket to an address literal without calling lookup, and a redirect can name
    // one, so literals are checked here before the connector sees them.
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host)) {
        try {
          checkAddresses(host, [host]);
        } catch (error) {
          callback(error as Error, null);
          return;
        }
      }
      connectTo(options, callback);
    },
  });
  // The SDKs type fetch with the DOM's Request and Response; undici's are the same at run time.
  return (input, init) =>
    undiciFetch(input as UndiciRequestInfo, {
      ...(init as UndiciRequestInit),
      dispatcher,
    }) as unknown as Promise<Response>;
}
