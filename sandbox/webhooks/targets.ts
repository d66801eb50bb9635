// Webhook target checks (spec 6, rules 5–6): run when a URL is accepted and again before every attempt,
// because DNS may answer differently by then. The attempt then connects to the address checked here, so the
// sandbox's own listener (a webhook must never reach the admin API) is refused on exactly the addresses a connection would use.

import { lookup } from 'node:dns/promises';
import { isIP, isIPv4 } from 'node:net';
import { networkInterfaces } from 'node:os';

import { reachesAdminPath } from '../admin-paths';
import {
	canonicalAddress,
	isForbiddenAddress,
	isLoopbackAddress,
	isUnspecifiedAddress,
} from './addresses';

export type TargetErrorCode = 'invalid_webhook_url' | 'webhook_url_forbidden_target';

export interface ResolvedAddress {
	address: string;
	family: 4 | 6;
}

/** Every address a hostname resolves to (an empty list or a rejection both mean "does not resolve"). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export type TargetRejection = { ok: false; code: TargetErrorCode; message: string };
export type TargetCheck = { ok: true; url: URL; address: ResolvedAddress } | TargetRejection;

/** Where the sandbox itself listens. */
export interface OwnEndpoint {
	port: number;
	/** The addresses the server is bound to, as it reports them; 0.0.0.0 and :: stand for every local address. */
	addresses: string[];
}

export interface TargetPolicy {
	/** Loopback targets (127.0.0.0/8, ::1, localhost) over http or https on any port; nothing else is relaxed. */
	allowLocalWebhooks: boolean;
	resolveHost: HostResolver;
	/** Never a target, on any of its addresses (null before the server listens). */
	ownEndpoint: OwnEndpoint | null;
}

export const REQUIRED_PORT = 443;

const OWN_ENDPOINT_MESSAGE =
	'webhook_url points at this sandbox itself; webhooks are never delivered to its own address and port';
const ADMIN_PATH_MESSAGE =
	'webhook_url points at the sandbox admin API (/_sandbox), which is never a webhook target';

/** Special-use names that never resolve (RFC 6761 §6.2–6.4); answered here without asking DNS. */
const NON_RESOLVING_NAME = /(^|\.)(invalid|test|example)$/;
const LOCALHOST_NAME = /(^|\.)localhost$/;
const LOCALHOST_ADDRESSES: ResolvedAddress[] = [
	{ address: '127.0.0.1', family: 4 },
	{ address: '::1', family: 6 },
];

export const resolveWithSystemDns: HostResolver = async (hostname) => {
	const answers = await lookup(hostname, { all: true });
	return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

function invalid(message: string): TargetRejection {
	return { ok: false, code: 'invalid_webhook_url', message };
}

function forbiddenTarget(message: string): TargetRejection {
	return { ok: false, code: 'webhook_url_forbidden_target', message };
}

function portOf(url: URL): number {
	if (url.port !== '') return Number(url.port);
	return url.protocol === 'https:' ? 443 : 80;
}

/** The interfaces are read at each check: addresses come and go (DHCP, VPNs) while the sandbox runs. */
function isLocalAddress(canonical: string): boolean {
	if (isLoopbackAddress(canonical)) return true;
	return Object.values(networkInterfaces()).some((entries) =>
		(entries ?? []).some((entry) => canonicalAddress(entry.address) === canonical),
	);
}

/** Would a connection to `rawAddress`:`port` arrive at the sandbox's own listener? */
function reachesOwnEndpoint(rawAddress: string, port: number, own: OwnEndpoint): boolean {
	if (port !== own.port) return false;
	const target = canonicalAddress(rawAddress);
	if (target === null) return false;
	// Connecting to 0.0.0.0 or :: reaches this host.
	if (isUnspecifiedAddress(target)) return true;
	return own.addresses.some((listening) => {
		const bound = canonicalAddress(listening);
		if (bound === target) return true;
		// 0.0.0.0 takes IPv4 on every local address; :: (dual stack) takes both families.
		if (bound === '0.0.0.0') return isIPv4(target) && isLocalAddress(target);
		if (bound === '::') return isLocalAddress(target);
		return false;
	});
}

/** The last word before a target is accepted: none of its addresses may lead back into the sandbox. */
function accept(url: URL, addresses: ResolvedAddress[], policy: TargetPolicy): TargetCheck {
	const own = policy.ownEndpoint;
	if (own && addresses.some(({ address }) => reachesOwnEndpoint(address, portOf(url), own)))
		return forbiddenTarget(OWN_ENDPOINT_MESSAGE);
	return { ok: true, url, address: addresses[0] };
}

/** "[::1]" → "::1", "Example.COM." → "example.com". */
function bareHostname(url: URL): string {
	return url.hostname
		.replace(/^\[(.*)\]$/, '$1')
		.replace(/\.$/, '')
		.toLowerCase();
}

async function resolveHostname(
	hostname: string,
	resolveHost: HostResolver,
): Promise<ResolvedAddress[]> {
	const family = isIP(hostname);
	if (family !== 0) return [{ address: hostname, family: family === 6 ? 6 : 4 }];
	if (LOCALHOST_NAME.test(hostname)) return LOCALHOST_ADDRESSES;
	if (NON_RESOLVING_NAME.test(hostname)) return [];
	try {
		return await resolveHost(hostname);
	} catch {
		return [];
	}
}

export async function checkTarget(rawUrl: string, policy: TargetPolicy): Promise<TargetCheck> {
	let url: URL;
	try {
		url = new URL(rawUrl);
	} catch {
		return invalid('webhook_url is not a valid absolute URL');
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:')
		return invalid('webhook_url must be an https:// URL');
	const hostname = bareHostname(url);
	if (hostname === '') return invalid('webhook_url has no hostname');
	// Credentials in a URL end up in logs; webhook requests authenticate by signature instead (spec 5.8).
	if (url.username !== '' || url.password !== '')
		return invalid('webhook_url must not contain user information');
	// On any host and port: a port-forward, tunnel or proxy may lead to the sandbox under another address.
	if (reachesAdminPath(url.pathname)) return forbiddenTarget(ADMIN_PATH_MESSAGE);

	const doesNotResolve = invalid(`webhook_url hostname "${hostname}" does not resolve`);
	const forbidden = forbiddenTarget(
		'webhook_url resolves to a forbidden network range (loopback, private, link-local, multicast or reserved)',
	);
	let addresses: ResolvedAddress[] | undefined;
	// The loopback exception depends on the answer, so this mode asks DNS first; by default a URL of the wrong shape
	// is refused without a lookup.
	if (policy.allowLocalWebhooks) {
		addresses = await resolveHostname(hostname, policy.resolveHost);
		if (addresses.length === 0) return doesNotResolve;
		if (addresses.every(({ address }) => isLoopbackAddress(address)))
			return accept(url, addresses, policy);
		if (addresses.some(({ address }) => isForbiddenAddress(address))) return forbidden;
	}

	if (url.protocol !== 'https:') {
		return invalid(
			policy.allowLocalWebhooks
				? 'webhook_url must be an https:// URL (http:// is allowed only for loopback targets)'
				: 'webhook_url must be an https:// URL',
		);
	}
	if (url.port !== '' && Number(url.port) !== REQUIRED_PORT) {
		return invalid(`webhook_url must use port ${REQUIRED_PORT} (got ${url.port})`);
	}
	addresses ??= await resolveHostname(hostname, policy.resolveHost);
	if (addresses.length === 0) return doesNotResolve;
	if (addresses.some(({ address }) => isForbiddenAddress(address))) return forbidden;
	return accept(url, addresses, policy);
}
