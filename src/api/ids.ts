// Identifiers are opaque (spec section 2), but every one of them travels as one path segment
// (/uploads/{upload_id}/binary, /transcriptions/{job_id}), so some strings cannot be ids: they would change the
// request's path instead of naming a resource. Percent-encoding does not help with "." and "..", which URL
// resolution removes whatever the encoding of the rest.

export const MAX_ID_LENGTH = 256;

/** Why `value` cannot be an id of the API, or undefined when it can. */
export function idProblem(value: string): string | undefined {
	if (value === '') return 'it is empty';
	if (value === '.' || value === '..') return `"${value}" is a path segment, not an id`;
	if (value.length > MAX_ID_LENGTH) {
		return `it is ${value.length} characters long; ids are at most ${MAX_ID_LENGTH}`;
	}
	if (/[/\\]/.test(value)) return 'it contains a path separator ("/" or "\\")';
	if ([...value].some(isSpaceOrControl)) return 'it contains whitespace or a control character';
	return undefined;
}

/** C0 controls, space, DEL and C1 controls. */
function isSpaceOrControl(char: string): boolean {
	const code = char.codePointAt(0) ?? 0;
	return code <= 0x20 || (code >= 0x7f && code <= 0x9f);
}
