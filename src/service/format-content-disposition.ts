// The Content-Disposition the service sends with an artifact (the form docs/api-notes.md states); clients read it with
// src/artifacts/parse-content-disposition.ts.

/** RFC 8187 attr-char: what an extended value may carry without percent-encoding. */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;

/** `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>`. */
export function formatContentDisposition(
	filename: string,
	type: 'attachment' | 'inline' = 'attachment',
): string {
	return `${type}; filename="${asciiFallback(filename)}"; filename*=UTF-8''${percentEncodeUtf8(filename)}`;
}

function percentEncodeUtf8(text: string): string {
	let encoded = '';
	for (const byte of Buffer.from(text, 'utf8')) {
		const char = String.fromCharCode(byte);
		encoded += ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
	}
	return encoded;
}

/** For clients that ignore filename*: accents dropped ('é' → 'e'), other non-printable-ASCII → '_', quotes escaped. */
function asciiFallback(filename: string): string {
	return filename
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/[^\x20-\x7e]/g, '_')
		.replace(/["\\]/g, '\\$&');
}
