import { BlockList, isIP } from 'node:net';

/**
 * IPv4 blocks of the IANA special-purpose registry (RFC 6890 and its updates) that are not
 * globally reachable unicast: this network, private, shared (CGN), loopback, link-local, IETF
 * protocol assignments, documentation, 6to4 relay, benchmarking, AS112, AMT, multicast, reserved
 * and broadcast.
 */
const SPECIAL_IPV4: readonly [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/**
 * Inside global unicast (2000::/3), the blocks that are special anyway: IETF protocol assignments
 * (Teredo among them), documentation, 6to4 (which embeds any IPv4 address). Everything outside
 * 2000::/3 (loopback, unspecified, IPv4-mapped, NAT64, unique-local, link-local, multicast) is
 * special too.
 */
const SPECIAL_IPV6: readonly [string, number][] = [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
];

const special = new BlockList();
for (const [network, prefix] of SPECIAL_IPV4) special.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of SPECIAL_IPV6) special.addSubnet(network, prefix, 'ipv6');
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** An address as `isIP` and BlockList take it: a URL's `[::1]` loses its brackets. */
export function bareAddress(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Whether Portico may connect to an address to fetch a client's metadata document: a globally
 * reachable unicast address, or loopback when `allowLoopback` (a Portico that itself runs on
 * loopback, for development and tests). Anything that is not an IP address is refused.
 */
export function isFetchableAddress(address: string, allowLoopback: boolean): boolean {
  const bare = bareAddress(address);
  const family = isIP(bare);
  if (family === 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (loopback.check(bare, type)) return allowLoopback;
  if (type === 'ipv6' && !globalUnicast.check(bare, 'ipv6')) return false;
  return !special.check(bare, type);
}
