// The rules a link to media must pass before the node requests it, and how it is shown afterwards. The same text
// rules guard the credential's Base URL (client/base-url.ts): what a person reads in the field is where it goes.

/** Redirects followed from the link to the media, as browsers and curl bound them; more is a loop or a trap. */
export const MAX_MEDIA_REDIRECTS = 10;

export interface UrlTextProblem {
	kind: 'backslash' | 'space_or_control' | 'user_info';
	/** Completes "The … URL …". */
	message: string;
}

const USER_INFO_MESSAGE = 'names a user or password before its host ("…@")';

function hasUserInfo(url: URL): boolean {
	return url.username !== '' || url.password !== '';
}

/** Why `raw` does not read as the URL it parses to, or undefined when it does. */
export function urlTextProblem(raw: string): UrlTextProblem | undefined {
	// WHATWG URL parsers read "\" as "/" in http(s) URLs: "https://evil.example\@api.example" goes to evil.example.
	if (raw.includes('\\'))
		return {
			kind: 'backslash',
			message:
				'contains a backslash (\\), which URL parsers read as "/": write it as %5C where it belongs to the path',
		};
	if ([...raw].some((char) => char.charCodeAt(0) <= 0x20 || char.charCodeAt(0) === 0x7f))
		return {
			kind: 'space_or_control',
			message: 'contains a space or a control character: write it percent-encoded (a space as %20)',
		};
	const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? '';
	if (authority.includes('@')) return { kind: 'user_info', message: USER_INFO_MESSAGE };
	return undefined;
}

export type MediaLinkProblem = { code: 'media_link_invalid'; message: string };

/** The link as a URL the node may request, or the problem with it. */
export function parseMediaLink(raw: string): URL | MediaLinkProblem {
	const text = raw.trim();
	const invalid = (why: string): MediaLinkProblem => ({
		code: 'media_link_invalid',
		message: `The media URL ${why}`,
	});
	if (text === '') return invalid('is empty');
	const userInfo = (message: string) =>
		invalid(
			`${message}: a link carries its secret in its query, a host's password belongs in a Media Link credential`,
		);
	const problem = urlTextProblem(text);
	if (problem)
		return problem.kind === 'user_info' ? userInfo(problem.message) : invalid(problem.message);
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return invalid(
			`"${redactLink(text)}" is not an absolute URL (it must start with https:// or http://)`,
		);
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:')
		return invalid(`must start with https:// or http://, not ${url.protocol}//`);
	if (url.hostname === '') return invalid('has no host');
	// Where the text has no "//" ("https:user@host"), the parser still finds a user: the text rule alone misses it.
	if (hasUserInfo(url)) return userInfo(USER_INFO_MESSAGE);
	return url;
}

/**
 * The link as errors, logs and output may show it: scheme, host, port and path. A pre-signed link's query is its
 * signature, and a fragment never leaves the browser, so both are replaced by "?…" / dropped.
 */
export function redactLink(link: string | URL): string {
	if (typeof link === 'string') {
		let url: URL;
		try {
			url = new URL(link);
		} catch {
			// Not a URL: nothing after the first "?" or "#" is shown, and at most 200 characters of the rest.
			const [head] = link.split(/[?#]/, 1);
			const shown = head.length > 200 ? `${head.slice(0, 200)}…` : head;
			return link.length > head.length ? `${shown}?…` : shown;
		}
		return redactLink(url);
	}
	return `${link.protocol}//${link.host}${link.pathname}${link.search ? '?…' : ''}`;
}

/** Where a redirect's Location points, resolved against the URL that answered it, or why it is not followed. */
export function redirectTarget(from: URL, location: string | undefined): URL | MediaLinkProblem {
	const refused = (why: string): MediaLinkProblem => ({
		code: 'media_link_invalid',
		message: `The media host at ${redactLink(from)} redirected ${why}`,
	});
	if (location === undefined || location.trim() === '') return refused('without a Location header');
	const problem = urlTextProblem(location.trim());
	if (problem) return refused(`to a Location that ${problem.message}`);
	let url: URL;
	try {
		url = new URL(location.trim(), from);
	} catch {
		return refused('to a Location that is not a URL');
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:')
		return refused(`to a ${url.protocol}// URL; only https:// and http:// are followed`);
	// A step down from https to http would send the rest of the exchange, and any signature, in the clear.
	if (from.protocol === 'https:' && url.protocol === 'http:')
		return refused(
			`from https:// to http:// (${redactLink(url)}); the node does not follow a link out of TLS`,
		);
	// "//user@host/…" (a Location without a scheme) names a user the text rule does not see.
	if (hasUserInfo(url)) return refused(`to a Location that ${USER_INFO_MESSAGE}`);
	return url;
}

export function isSameOrigin(a: URL, b: URL): boolean {
	return a.origin === b.origin;
}

/**
 * Whether `hostname` is one of `patterns`: a host name as written ("media.example.com"), or "*.example.com" for any
 * host under example.com (not example.com itself). Case-insensitive; IPv6 brackets ignored.
 */
export function hostMatches(hostname: string, patterns: readonly string[]): boolean {
	const host = hostname
		.toLowerCase()
		.replace(/^\[|\]$/g, '')
		.replace(/\.$/, '');
	return patterns.some((raw) => {
		const pattern = raw
			.trim()
			.toLowerCase()
			.replace(/^\[|\]$/g, '')
			.replace(/\.$/, '');
		if (pattern === '') return false;
		if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
		return host === pattern;
	});
}

/** The comma- or line-separated host list of a credential field, each entry trimmed, empty ones dropped. */
export function hostList(field: string): string[] {
	return field
		.split(/[,\n]/)
		.map((entry) => entry.trim())
		.filter((entry) => entry !== '');
}
