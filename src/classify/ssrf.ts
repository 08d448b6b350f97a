// A caller's base_url decides where this server sends an HTTP request, so it must not reach
// anything only this server can reach: loopback, private networks, link-local addresses and
// cloud metadata endpoints are refused unless the operator listed the host in LLM_ALLOWED_HOSTS.
//
// The check here runs once, when the request arrives; the SDK resolves the name again when it
// connects, and a DNS answer can change in between (rebinding). So the same address rule is
// applied a second time at connect time by guarded-fetch.ts, which caller-chosen hosts use.

import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to every address it has. */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export class UnsafeBaseUrl extends Error {
  override name = 'UnsafeBaseUrl';
}

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT, Alibaba's metadata address
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, the AWS/GCP/Azure metadata address
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 can reach private IPv4
  ['fc00::', 7], // unique local, AWS's IPv6 metadata address
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** An IPv4 address hidden in an IPv6 one (::ffff:a.b.c.d or ::ffff:hhhh:hhhh). */
function embeddedIpv4(address: string): string | null {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

export function isBlockedAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return blocked.check(address, 'ipv4');
  if (version === 6) {
    const ipv4 = embeddedIpv4(address);
    return ipv4 !== null ? blocked.check(ipv4, 'ipv4') : blocked.check(address, 'ipv6');
  }
  return true;
}

/** Throws `UnsafeBaseUrl` unless the name has addresses and none of them is blocked. */
export function checkAddresses(hostname: string, addresses: readonly string[]): void {
  if (addresses.length === 0) throw new UnsafeBaseUrl(`host ${hostname} cannot be resolved`);
  if (addresses.some(isBlockedAddress)) {
    throw new UnsafeBaseUrl(`host ${hostname} resolves to a loopback, private, link-local or metadata address; list it in LLM_ALLOWED_HOSTS to allow it`);
  }
}

export interface CheckedBaseUrl {
  url: URL;
  /** The operator listed the host, so its connections need no guard. */
  allow_listed: boolean;
}

/**
 * Returns the URL when it is safe to send requests to; throws `UnsafeBaseUrl` with a reason
 * that names the host but never the full URL (it could carry credentials).
 */
export async function checkBaseUrl(raw: string, allowedHosts: readonly string[], resolve: HostResolver = systemResolver): Promise<CheckedBaseUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeBaseUrl('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsafeBaseUrl('must use http or https');
  if (url.username || url.password) throw new UnsafeBaseUrl('must not carry credentials; send api_key instead');
  const hostname = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (hostname === '') throw new UnsafeBaseUrl('must name a host');
  if (allowedHosts.includes(hostname)) return { url, allow_listed: true };

  let addresses: string[];
  if (isIP(hostname)) addresses = [hostname];
  else {
    try {
      addresses = await resolve(hostname);
    } catch {
      throw new UnsafeBaseUrl(`host ${hostname} cannot be resolved`);
    }
  }
  checkAddresses(hostname, addresses);
  return { url, allow_listed: false };
}
