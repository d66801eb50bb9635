// Spec 6, rules 5 and 6: the service delivers only to public HTTPS on port 443, and refuses targets that resolve
// to private, loopback, link-local, multicast, reserved or unspecified ranges. A client can tell from the URL
// alone when a target is certainly refused (an IP literal in such a range, "localhost"); names that resolve there
// only the service can see, and it answers 400 at job creation, before any job starts.

/** Why the service would refuse `url` as a webhook target, judging by the URL alone; undefined when it may accept. */
export function webhookTargetProblem(url: string): string | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return 'it is not a URL';
	}
	if (parsed.protocol !== 'https:') return `it is ${parsed.protocol.replace(':', '')}, not https`;
	if (parsed.port !== '' && parsed.port !== '443') return `it uses port ${parsed.port}, not 443`;
	if (isLocalHost(parsed.hostname)) return `its host ${parsed.hostname} is not a public address`;
	return undefined;
}

/** A host only this machine or its private network can reach: localhost names and non-public IP literals. */
export function isLocalHost(hostname: string): boolean {
	const host = hostname
		.toLowerCase()
		.replace(/^\[|\]$/g, '')
		.replace(/\.$/, '');
	if (host === 'localhost' || host.endsWith('.localhost')) return true;
	const ipv4 = parseIPv4(host);
	if (ipv4) return !isPublicIPv4(ipv4);
	if (host.includes(':')) return !isPublicIPv6(host);
	return false;
}

function parseIPv4(host: string): number[] | undefined {
	const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
	if (!match) return undefined;
	const octets = match.slice(1).map(Number);
	return octets.every((octet) => octet <= 255) ? octets : undefined;
}

function isPublicIPv4([a, b]: number[]): boolean {
	if (a === 0 || a === 10 || a === 127 || a >= 224) return false;
	if (a === 100 && b >= 64 && b <= 127) return false; // carrier-grade NAT
	if (a === 169 && b === 254) return false; // link-local
	if (a === 172 && b >= 16 && b <= 31) return false;
	if (a === 192 && b === 168) return false;
	return true;
}

/** Only global unicast (2000::/3) is public; an IPv4-mapped address is judged as its IPv4 address. */
function isPublicIPv6(host: string): boolean {
	const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(host);
	if (mapped) {
		const ipv4 = parseIPv4(mapped[1]);
		return ipv4 !== undefined && isPublicIPv4(ipv4);
	}
	// WHATWG URL writes ::ffff:127.0.0.1 as ::ffff:7f00:1.
	const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
	if (mappedHex) {
		const [high, low] = [parseInt(mappedHex[1], 16), parseInt(mappedHex[2], 16)];
		return isPublicIPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
	}
	if (host.startsWith('::')) return false;
	const firstGroup = parseInt(host.split(':')[0] || '0', 16);
	return firstGroup >= 0x2000 && firstGroup <= 0x3fff;
}
