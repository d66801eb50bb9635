// Where the API key may be sent: the credential's Base URL must be https://, except on this machine's loopback
// (the local sandbox and the tests), where nothing crosses a network; and it must read as the URL it parses to, by the
// rules a media link is held to (src/media/link.ts).
import { urlTextProblem } from '../media/link';

/** 127.0.0.0/8, ::1 (also as an IPv4-mapped address) and `localhost`; a name that merely resolves there does not count. */
export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
	if (host === 'localhost' || host.endsWith('.localhost')) return true;
	if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
	const ipv4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
	return (
		ipv4 !== null && Number(ipv4[1]) === 127 && ipv4.slice(2).every((part) => Number(part) <= 255)
	);
}

export type BaseUrlProblem =
	| { kind: 'misleading_text'; message: string }
	| { kind: 'not_http'; message: string }
	| { kind: 'credentials_in_url'; message: string }
	| { kind: 'plain_http'; message: string };

export const PLAIN_HTTP_MESSAGE =
	"The credential's Base URL must start with https:// (plain http:// is accepted only for this machine: 127.0.0.1, [::1] or localhost)";

/** Why the API key must not be sent to `baseUrl`, or undefined when it may. */
export function baseUrlProblem(baseUrl: string): BaseUrlProblem | undefined {
	const textProblem = urlTextProblem(baseUrl);
	if (textProblem?.kind === 'user_info') {
		return {
			kind: 'credentials_in_url',
			message: "The credential's Base URL must not contain a user name or password",
		};
	}
	if (textProblem !== undefined) {
		return { kind: 'misleading_text', message: `The credential's Base URL ${textProblem.message}` };
	}
	let url: URL;
	try {
		url = new URL(baseUrl);
	} catch {
		url = new URL('invalid:');
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return {
			kind: 'not_http',
			message: "The credential's Base URL must start with http:// or https://",
		};
	}
	// n8n's HTTP client would send "user:password@" as Basic authentication in place of the key (every request 401).
	if (url.username !== '' || url.password !== '') {
		return {
			kind: 'credentials_in_url',
			message: "The credential's Base URL must not contain a user name or password",
		};
	}
	if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
		return { kind: 'plain_http', message: PLAIN_HTTP_MESSAGE };
	}
	return undefined;
}
