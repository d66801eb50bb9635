// Who may call the sandbox. It runs on a developer's machine with documented demo keys, and any web page the
// developer opens can send requests to a local port. A DNS-rebinding page reaches it under the page's own host name
// (same origin, so no CORS preflight stops it), so every request must be addressed to a local host name — a loopback
// address in any spelling, localhost, *.localhost, the host it listens on, an IP address when it listens on all
// interfaces, or a name the operator allowed — and carry no Origin of another site. The admin API adds its own rules.

import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors';
import { isLoopbackAddress } from './webhooks';

/** Where the sandbox listens and which extra host names it answers to (the CLI's --allowed-host). */
export interface HostPolicy {
	listenHost: string;
	allowedHosts: readonly string[];
}

/** The host name of a Host header or Origin, or null for anything else (user info, a path, garbage). */
function hostnameOf(value: string, scheme: 'http:' | 'any'): string | null {
	let url: URL;
	try {
		url = new URL(scheme === 'http:' ? `http://${value}` : value);
	} catch {
		return null;
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
	if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '')
		return null;
	return url.hostname
		.replace(/^\[(.*)\]$/, '$1')
		.replace(/\.$/, '')
		.toLowerCase();
}

const WILDCARD_HOSTS: ReadonlySet<string> = new Set(['0.0.0.0', '::', '']);

function isLocalHostname(hostname: string | null, policy: HostPolicy): boolean {
	if (hostname === null) return false;
	const listenHost = policy.listenHost.toLowerCase();
	return (
		isLoopbackAddress(hostname) ||
		hostname === 'localhost' ||
		hostname.endsWith('.localhost') ||
		hostname === listenHost ||
		// Listening on every interface, it is reached by the machine's addresses; a rebinding page has a name.
		(WILDCARD_HOSTS.has(listenHost) && isIP(hostname) !== 0) ||
		policy.allowedHosts.some((allowed) => allowed.toLowerCase() === hostname)
	);
}

/** Codes of the refusals, per API (the admin API keeps its own names). */
export interface RefusalCodes {
	host: string;
	crossSite: string;
}

/** Refuses a request addressed to a foreign host name or sent by a page of another site (403). */
export function refuseForeignHost(
	request: FastifyRequest,
	policy: HostPolicy,
	what: string,
	codes: RefusalCodes,
): void {
	const host = request.headers.host;
	if (host === undefined || !isLocalHostname(hostnameOf(host, 'http:'), policy)) {
		throw new ApiError(
			403,
			codes.host,
			`${what} answers only requests addressed to a local host (127.0.0.1, [::1], localhost, or a name given ` +
				`with --allowed-host); Host ${JSON.stringify(host ?? null)} is not one (as on a DNS-rebinding page).`,
		);
	}
	const origin = request.headers.origin;
	const fetchSite = request.headers['sec-fetch-site'];
	if (
		(origin !== undefined && !isLocalHostname(hostnameOf(origin, 'any'), policy)) ||
		fetchSite === 'cross-site'
	) {
		throw new ApiError(
			403,
			codes.crossSite,
			`${what} refuses requests from web pages of other sites (Origin ${JSON.stringify(origin ?? null)}` +
				`${fetchSite === undefined ? '' : `, Sec-Fetch-Site ${JSON.stringify(fetchSite)}`}).`,
		);
	}
}
