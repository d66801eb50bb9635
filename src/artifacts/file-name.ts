// File names that come from outside (the service's Content-Disposition, an upload's name) become n8n binary file
// names, which users write to disk on any system. Real letters (Hebrew, accents, emoji) stay; what could hide the
// real name, break a header or a path, or a file system, goes.

/** Well under the 255-byte limit of common file systems, leaving room for a suffix a user adds. */
export const MAX_FILE_NAME_BYTES = 200;

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;
/** Path separators and the characters Windows refuses in a name. */
const SEPARATORS_AND_RESERVED = /[/\\?<>:*|"]/g;

/**
 * Bidi controls (an "invoice\u202Etrs.exe" shows as "invoiceexe.srt"), zero-width space and byte-order mark: invisible
 * in a name, they only make it read as something it is not. Zero-width (non-)joiners stay: scripts need them.
 */
function isInvisibleFormatting(code: number): boolean {
	return (
		code === 0x061c ||
		code === 0x200b ||
		code === 0x200e ||
		code === 0x200f ||
		(code >= 0x202a && code <= 0x202e) ||
		(code >= 0x2066 && code <= 0x2069) ||
		code === 0xfeff
	);
}

/** C0 controls (NUL, CR, LF, tab …), DEL and C1 controls. */
function isControl(code: number): boolean {
	return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/**
 * The name with controls and path/reserved characters replaced by "_", invisible formatting removed, trailing dots
 * and spaces dropped, Windows device names prefixed, and at most MAX_FILE_NAME_BYTES of UTF-8 (the extension kept).
 * Returns '' when nothing usable is left; the caller picks the fallback.
 */
export function cleanFileName(name: string): string {
	let cleaned = '';
	for (const char of name) {
		const code = char.codePointAt(0) ?? 0;
		if (isInvisibleFormatting(code)) continue;
		cleaned += isControl(code) ? '_' : char;
	}
	cleaned = cleaned.replace(SEPARATORS_AND_RESERVED, '_').trim();
	cleaned = cleaned.replace(/[. ]+$/, '');
	if (/^[._\s]*$/.test(cleaned)) return '';
	if (WINDOWS_RESERVED.test(cleaned)) cleaned = `_${cleaned}`;
	return truncateKeepingExtension(cleaned, MAX_FILE_NAME_BYTES);
}

function truncateKeepingExtension(name: string, maxBytes: number): string {
	if (Buffer.byteLength(name, 'utf8') <= maxBytes) return name;
	const dot = name.lastIndexOf('.');
	const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
	const stemBudget = maxBytes - Buffer.byteLength(extension, 'utf8');
	let stem = '';
	for (const char of extension ? name.slice(0, dot) : name) {
		if (Buffer.byteLength(stem + char, 'utf8') > stemBudget) break;
		stem += char;
	}
	return `${stem.replace(/[. ]+$/, '')}${extension}`;
}
