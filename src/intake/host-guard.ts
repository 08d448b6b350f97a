// A mailbox's host decides where this server opens a TCP connection, so it gets the check every
// outbound connection gets (src/shared/net/ssrf.ts): company IMAP servers live on private networks,
// so the operator lists them in OUTBOUND_ALLOWED_HOSTS.

import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { type HostResolver, addressRefusal, buildAllowList, systemResolver } from '../shared/net/ssrf.js';

export class HostNotAllowed extends Error {
  override name = 'HostNotAllowed';
  /** So that it is still recognised when a library passes it on as a plain error. */
  readonly code = 'EHOSTNOTALLOWED';
  constructor(
    readonly host: string,
    /** What to tell the person who typed the host, as the rest of "host: …". */
    readonly reason: string,
  ) {
    super(`${host} ${reason}`);
  }
}

/**
 * The host as it is connected to: trimmed, lower case, an IPv6 address without the brackets a
 * URL puts around it ("[::1]" is "::1"). Null when the brackets hold something else.
 */
export function normalizeHost(host: string): string | null {
  const trimmed = host.trim().toLowerCase();
  const bracketed = /^\[(.*)\]$/.exec(trimmed);
  if (!bracketed) return trimmed.includes('[') || trimmed.includes(']') ? null : trimmed;
  return isIP(bracketed[1]!) === 6 ? bracketed[1]! : null;
}

export interface HostGuard {
  /** Every address of the host, each checked; throws HostNotAllowed, or the resolver's error. */
  addresses(host: string): Promise<string[]>;
  /**
   * The create/update check (a 422 naming `host`): throws HostNotAllowed; a name that does not
   * resolve passes (the connection test will say so).
   */
  check(host: string): Promise<void>;
  /**
   * For the socket (net.connect's `lookup`): only addresses that passed the check reach it, so a
   * DNS answer that changed since (rebinding) cannot point the connection elsewhere.
   */
  lookup: LookupFunction;
}

/**
 * Loopback and private addresses pass when `allowedHosts` lists the host, the address, or a CIDR
 * range holding it.
 */
export function createHostGuard(allowedHosts: readonly string[], resolve: HostResolver = systemResolver): HostGuard {
  const allow = buildAllowList(allowedHosts);

  function verify(host: string, addresses: readonly string[]): void {
    if (addresses.length === 0) throw new HostNotAllowed(host, 'has no address');
    for (const address of addresses) {
      const refusal = addressRefusal(host, address, allow);
      if (refusal === 'never') {
        throw new HostNotAllowed(
          host,
          'is not allowed: it is (or resolves to) a link-local, cloud metadata or unspecified address, which a mailbox can never use',
        );
      }
      if (refusal === 'private') {
        throw new HostNotAllowed(
          host,
          'is not allowed: it is (or resolves to) a loopback or private address; the operator can allow it by listing it in OUTBOUND_ALLOWED_HOSTS',
        );
      }
    }
  }

  async function addresses(host: string): Promise<string[]> {
    const found = isIP(host) ? [host] : await resolve(host);
    verify(host, found);
    return found;
  }

  const lookup: LookupFunction = (hostname: string, options: LookupOptions, callback) => {
    addresses(hostname).then(
      (found) => {
        const entries: LookupAddress[] = found
          .map((address) => ({ address, family: isIP(address) }))
          .filter((entry) => !options.family || options.family === entry.family);
        if (entries.length === 0) {
          callback(
            Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
        } else if (options.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (error: unknown) => {
        if (error instanceof HostNotAllowed) callback(error as unknown as NodeJS.ErrnoException, '', 0);
        else callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 0);
      },
    );
  };

  return {
    addresses,
    async check(host) {
      try {
        await addresses(host);
      } catch (error) {
        if (error instanceof HostNotAllowed) throw error;
      }
    },
    lookup,
  };
}
