// The one address check for every outbound connection (a caller's base_url, a mailbox host, a webhook URL):
// link-local and metadata addresses are always refused; loopback and private ones only pass when the
// operator lists the host, the address or its range in OUTBOUND_ALLOWED_HOSTS.

import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to every address it has. */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export class UnsafeBaseUrl extends Error {
  override name = 'UnsafeBaseUrl';
}

// IANA's special-purpose registries: every range that is not globally reachable, and the
// documentation ranges, which no real provider uses and which would only time out.
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT, Alibaba's metadata address
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, the AWS/GCP/Azure metadata address
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1, documentation
  ['192.88.99.0', 24], // the retired 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2, documentation
  ['203.0.113.0', 24], // TEST-NET-3, documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
// IPv6 is refused outside global unicast (2000::/3): loopback, unspecified, IPv4-compatible,
// NAT64 (it can reach private IPv4), discard, unique local (AWS's metadata address), link-local,
// multicast. Inside it, the blocks below are not public hosts either.
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');
for (const [network, prefix] of [
  ['2001::', 23], // IETF protocol assignments, Teredo (tunnels to any IPv4 address)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: wraps any IPv4 address, a private one included
  ['3fff::', 20], // documentation
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** An IPv4 address hidden in an IPv6 one (::ffff:a.b.c.d or ::ffff:hhhh:hhhh); mail intake's host guard reads it too. */
export function embeddedIpv4(address: string): string | null {
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
    if (ipv4 !== null) return blocked.check(ipv4, 'ipv4');
    return !globalUnicast.check(address, 'ipv6') || blocked.check(address, 'ipv6');
  }
  return true;
}

/**
 * Never a server anyone means to reach, refused even when listed: link-local (the AWS, GCP and
 * Azure metadata address among them), metadata endpoints, unspecified, multicast, broadcast.
 */
const never = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['169.254.0.0', 16],
  ['100.100.100.200', 32], // Alibaba Cloud's metadata address
  ['224.0.0.0', 4],
  ['255.255.255.255', 32],
] as const) {
  never.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['fe80::', 10],
  ['fd00:ec2::254', 128], // AWS's IPv6 metadata address
  ['ff00::', 8],
] as const) {
  never.addSubnet(network, prefix, 'ipv6');
}

/** OUTBOUND_ALLOWED_HOSTS as the check reads it: host names, addresses and CIDR ranges. */
export interface AllowList {
  names: ReadonlySet<string>;
  addresses: BlockList;
}

/** Entries as config.ts leaves them: lower case, IPv6 without brackets, ranges already validated. */
export function buildAllowList(entries: readonly string[]): AllowList {
  const names = new Set<string>();
  const addresses = new BlockList();
  for (const entry of entries) {
    const [network, prefix] = entry.split('/');
    const version = isIP(network!);
    if (version === 0) names.add(entry);
    else if (prefix === undefined) addresses.addAddress(network!, version === 4 ? 'ipv4' : 'ipv6');
    else addresses.addSubnet(network!, Number(prefix), version === 4 ? 'ipv4' : 'ipv6');
  }
  return { names, addresses };
}

export const EMPTY_ALLOW_LIST: AllowList = buildAllowList([]);

/**
 * Why one address of `host` may not be connected to: `never` (link-local, metadata, not an
 * address), `private` (loopback or private, and neither the host nor the address is listed), or
 * null when it may. An IPv4 address inside an IPv6 one is judged as the IPv4 address.
 */
export function addressRefusal(host: string, raw: string, allow: AllowList): 'never' | 'private' | null {
  const address = embeddedIpv4(raw) ?? raw;
  const version = isIP(address);
  if (version === 0) return 'never';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (never.check(address, family)) return 'never';
  if (isBlockedAddress(address) && !allow.names.has(host) && !allow.addresses.check(address, family)) return 'private';
  return null;
}

/**
 * Why a host is refused, in the same words whether its name resolves or not: a caller must not
 * learn from this server which internal names exist.
 */
function notAllowed(hostname: string): UnsafeBaseUrl {
  return new UnsafeBaseUrl(
    `host ${hostname} is not allowed: a caller's base_url must name a public host, unless the operator lists it in OUTBOUND_ALLOWED_HOSTS`,
  );
}

/** Throws `UnsafeBaseUrl` unless the name has addresses and none of them is refused. */
export function checkAddresses(hostname: string, addresses: readonly string[], allow = EMPTY_ALLOW_LIST): void {
  if (addresses.length === 0 || addresses.some((address) => addressRefusal(hostname, address, allow) !== null))
    throw notAllowed(hostname);
}

/**
 * Returns the URL when it is safe to send requests to; throws `UnsafeBaseUrl` with a reason
 * that names the host but never the full URL (it could carry credentials). Runs once, as the request
 * arrives; the name is resolved again at connect time, so guarded-fetch.ts applies the rule again there.
 */
export async function checkBaseUrl(
  raw: string,
  allow: AllowList,
  resolve: HostResolver = systemResolver,
): Promise<URL> {
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

  let addresses: string[];
  if (isIP(hostname)) addresses = [hostname];
  else {
    try {
      addresses = await resolve(hostname);
    } catch {
      // A listed name may be down now; the connection is checked when it opens.
      if (allow.names.has(hostname)) return url;
      throw notAllowed(hostname);
    }
  }
  checkAddresses(hostname, addresses, allow);
  return url;
}
