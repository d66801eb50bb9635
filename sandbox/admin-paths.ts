// Where the admin API lives, and whether a URL path would reach it. Shared by the admin routes and the
// webhook target check, which must never send a webhook there, whatever host or port leads to the sandbox.

export const ADMIN_PREFIX = '/_sandbox';

/** Enough for any chain of proxies that each decode once; a path still changing after this many rounds is refused. */
const MAX_DECODING_ROUNDS = 8;

function percentDecodedOnce(path: string): string {
	return path.replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) =>
		String.fromCharCode(parseInt(hex, 16)),
	);
}

/**
 * True when `pathname` names the admin API under any reading a router or proxy might give it: percent-decoded
 * (repeatedly: %255F is %5F is _), backslashes and doubled slashes as one slash, dot segments resolved, any case.
 */
export function reachesAdminPath(pathname: string): boolean {
	let decoded = pathname;
	for (let round = 0; ; round++) {
		const next = percentDecodedOnce(decoded);
		if (next === decoded) break;
		if (round === MAX_DECODING_ROUNDS) return true;
		decoded = next;
	}
	const segments: string[] = [];
	for (const segment of decoded.split(/[\\/]+/)) {
		if (segment === '..') segments.pop();
		else if (segment !== '' && segment !== '.') segments.push(segment);
	}
	return (segments[0] ?? '').toLowerCase().startsWith(ADMIN_PREFIX.slice(1));
}
