// Reading the Content-Disposition of artifact downloads (spec 4.7): RFC 6266 with RFC 5987/8187 extended values.
// Writing one is the service's job (src/service/format-content-disposition.ts).

export interface ContentDisposition {
	/** Lower-cased disposition type ('attachment', 'inline'); '' when the header has none. */
	type: string;
	/** Lower-cased parameter names; an extended `name*` value is decoded and stored under `name`, where it wins. */
	parameters: Record<string, string>;
	filename?: string;
}

/**
 * RFC 6266 + RFC 5987: filename* (UTF-8''percent-encoded, also ISO-8859-1'') wins over quoted/token filename=; never throws on junk
 * (returns { type: '', parameters: {} } or the parts it could read). Lenient where servers are sloppy: unquoted values may
 * contain spaces, a header may start with a parameter, a `name*` value that cannot be decoded is ignored, and the first
 * of two plain values is kept.
 */
export function parseContentDisposition(header: string | null | undefined): ContentDisposition {
	if (typeof header !== 'string') return { type: '', parameters: {} };
	const firstSemicolon = header.indexOf(';');
	const head = firstSemicolon === -1 ? header : header.slice(0, firstSemicolon);
	const startsWithParameter = head.includes('=');
	const type = startsWithParameter ? '' : head.trim().toLowerCase();

	const plain = new Map<string, string>();
	const extended = new Map<string, string>();
	let position = startsWithParameter ? 0 : head.length + 1;
	while (position < header.length) {
		const equals = header.indexOf('=', position);
		if (equals === -1) break;
		const semicolon = header.indexOf(';', position);
		if (semicolon !== -1 && semicolon < equals) {
			position = semicolon + 1;
			continue;
		}
		const name = header.slice(position, equals).trim().toLowerCase();
		const { value, end } = readValue(header, equals + 1);
		position = end + 1;
		if (name === '') continue;
		if (name.endsWith('*')) {
			const decoded = decodeExtendedValue(value);
			if (decoded !== undefined && !extended.has(name.slice(0, -1)))
				extended.set(name.slice(0, -1), decoded);
		} else if (!plain.has(name)) {
			plain.set(name, value);
		}
	}

	const parameters = Object.fromEntries([...plain, ...extended]);
	const filename = parameters.filename;
	return filename === undefined ? { type, parameters } : { type, parameters, filename };
}

/** A quoted-string (backslash escapes undone; unterminated → the rest) or a token running to the next ';'. */
function readValue(header: string, start: number): { value: string; end: number } {
	let index = start;
	while (header[index] === ' ' || header[index] === '\t') index++;
	if (header[index] !== '"') {
		const semicolon = header.indexOf(';', index);
		const end = semicolon === -1 ? header.length : semicolon;
		return { value: header.slice(index, end).trim(), end };
	}
	let value = '';
	for (index++; index < header.length && header[index] !== '"'; index++) {
		if (header[index] === '\\' && index + 1 < header.length) index++;
		value += header[index];
	}
	// Anything between the closing quote and the next ';' is junk.
	const semicolon = header.indexOf(';', index);
	return { value, end: semicolon === -1 ? header.length : semicolon };
}

/** charset'language'percent-encoded; UTF-8 and ISO-8859-1 are the charsets RFC 8187 requires. */
function decodeExtendedValue(value: string): string | undefined {
	const match = /^([^']*)'[^']*'(.*)$/s.exec(value);
	if (!match) return undefined;
	const charset = match[1].trim().toLowerCase();
	if (charset !== 'utf-8' && charset !== 'utf8' && charset !== 'iso-8859-1') return undefined;
	const bytes = percentDecode(match[2]);
	// Invalid UTF-8 becomes U+FFFD, as browsers and the content-disposition library decode it.
	return bytes.toString(charset === 'iso-8859-1' ? 'latin1' : 'utf8');
}

function percentDecode(encoded: string): Buffer {
	const bytes: number[] = [];
	for (let index = 0; index < encoded.length; index++) {
		const hex = encoded.slice(index + 1, index + 3);
		if (encoded[index] === '%' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
			bytes.push(parseInt(hex, 16));
			index += 2;
		} else {
			const codePoint = encoded.codePointAt(index) ?? 0;
			if (codePoint > 0xffff) index++;
			bytes.push(...Buffer.from(String.fromCodePoint(codePoint), 'utf8'));
		}
	}
	return Buffer.from(bytes);
}
