// Which resolved addresses a webhook may be sent to (spec 6, rule 6). IPv4 and IPv6 are checked against
// separate lists: a BlockList also matches an IPv4 address against IPv6 subnets (as ::ffff:a.b.c.d), which
// would blur the two families.

import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Loopback, private, link-local, shared, multicast, reserved, documentation and broadcast IPv4 ranges. */
const FORBIDDEN_IPV4_SUBNETS: ReadonlyArray<readonly [string, number]> = [
	['0.0.0.0', 8], // "this network", incl. the unspecified 0.0.0.0
	['10.0.0.0', 8], // private
	['100.64.0.0', 10], // carrier-grade NAT (shared)
	['127.0.0.0', 8], // loopback
	['169.254.0.0', 16], // link-local (cloud metadata lives here)
	['172.16.0.0', 12], // private
	['192.0.0.0', 24], // IETF protocol assignments
	['192.0.2.0', 24], // documentation TEST-NET-1
	['192.88.99.0', 24], // deprecated 6to4 relay anycast
	['192.168.0.0', 16], // private
	['198.18.0.0', 15], // benchmarking
	['198.51.100.0', 24], // documentation TEST-NET-2
	['203.0.113.0', 24], // documentation TEST-NET-3
	['224.0.0.0', 4], // multicast
	['240.0.0.0', 4], // reserved, incl. broadcast 255.255.255.255
];

/**
 * Only global unicast (2000::/3) is reachable at all; inside it these are still special-purpose.
 * Everything outside 2000::/3 — ::, ::1, fc00::/7, fe80::/10, ff00::/8, 64:ff9b::/96 … — is refused by that rule.
 */
const FORBIDDEN_GLOBAL_IPV6_SUBNETS: ReadonlyArray<readonly [string, number]> = [
	['2001::', 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID …)
	['2001:db8::', 32], // documentation
	['2002::', 16], // 6to4: embeds an arbitrary IPv4 address
	['3fff::', 20], // documentation
];

function blockListOf(
	subnets: ReadonlyArray<readonly [string, number]>,
	family: 'ipv4' | 'ipv6',
): BlockList {
	const list = new BlockList();
	for (const [network, prefix] of subnets) list.addSubnet(network, prefix, family);
	return list;
}

const forbiddenIPv4 = blockListOf(FORBIDDEN_IPV4_SUBNETS, 'ipv4');
const forbiddenGlobalIPv6 = blockListOf(FORBIDDEN_GLOBAL_IPV6_SUBNETS, 'ipv6');
const globalUnicastIPv6 = blockListOf([['2000::', 3]], 'ipv6');
const ipv4MappedIPv6 = blockListOf([['::ffff:0:0', 96]], 'ipv6');
const loopbackIPv4 = blockListOf([['127.0.0.0', 8]], 'ipv4');
const loopbackIPv6 = blockListOf([['::1', 128]], 'ipv6');

/** "fe80::1%eth0" → "fe80::1": a zone index names an interface, not a different address. */
function withoutZone(address: string): string {
	const zoneStart = address.indexOf('%');
	return zoneStart === -1 ? address : address.slice(0, zoneStart);
}

/** The IPv4 address inside ::ffff:a.b.c.d / ::ffff:xxxx:yyyy (the caller has checked the prefix). */
function embeddedIPv4(mapped: string): string {
	const groups = mapped.split(':');
	const last = groups[groups.length - 1];
	if (isIPv4(last)) return last;
	const high = parseInt(groups[groups.length - 2] || '0', 16);
	const low = parseInt(last || '0', 16);
	return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** True for any address a webhook must never reach; also true for anything that is not an IP address. */
export function isForbiddenAddress(rawAddress: string): boolean {
	const address = withoutZone(rawAddress);
	if (isIPv4(address)) return forbiddenIPv4.check(address, 'ipv4');
	if (!isIPv6(address)) return true;
	if (ipv4MappedIPv6.check(address, 'ipv6')) return isForbiddenAddress(embeddedIPv4(address));
	return !globalUnicastIPv6.check(address, 'ipv6') || forbiddenGlobalIPv6.check(address, 'ipv6');
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms: the only targets `allowLocalWebhooks` opens up. */
export function isLoopbackAddress(rawAddress: string): boolean {
	const address = withoutZone(rawAddress);
	if (isIPv4(address)) return loopbackIPv4.check(address, 'ipv4');
	if (!isIPv6(address)) return false;
	if (ipv4MappedIPv6.check(address, 'ipv6')) return isLoopbackAddress(embeddedIPv4(address));
	return loopbackIPv6.check(address, 'ipv6');
}

/**
 * One spelling per address, so two spellings of the same socket compare equal: no zone, IPv4-mapped IPv6 as its IPv4
 * address, IPv6 in the WHATWG URL serialisation (lower case, zeros compressed). Null for anything but an IP address.
 */
export function canonicalAddress(rawAddress: string): string | null {
	const address = withoutZone(rawAddress);
	if (isIPv4(address)) return address;
	if (!isIPv6(address)) return null;
	if (ipv4MappedIPv6.check(address, 'ipv6')) return embeddedIPv4(address);
	return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

/** 0.0.0.0 and ::: a listener there takes every local address; a connection there reaches this host. */
export function isUnspecifiedAddress(canonical: string): boolean {
	return canonical === '0.0.0.0' || canonical === '::';
}
