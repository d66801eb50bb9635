// The body serialisation the service signs (spec section 6), byte-for-byte what Python's
// json.dumps(value, sort_keys=True, separators=(',', ':')) produces with its default ensure_ascii=True.

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
	'"': '\\"',
	'\\': '\\\\',
	'\b': '\\b',
	'\f': '\\f',
	'\n': '\\n',
	'\r': '\\r',
	'\t': '\\t',
};

/**
 * JSON with keys sorted recursively, separators "," and ":", and non-ASCII escaped as \uXXXX (surrogate pairs above the BMP)
 * exactly like Python's json.dumps(v, sort_keys=True, separators=(',', ':')) with its default ensure_ascii=True.
 *
 * Values follow JSON.stringify (toJSON is called, undefined/functions are dropped from objects and become null in arrays).
 * JavaScript has one number type, so integral numbers are written as Python writes an int ("3", never "3.0") and other
 * numbers as Python's float repr ("0.1", "1e-05"). Non-finite numbers and circular structures throw a TypeError.
 */
export function canonicalJson(value: unknown): string {
	const json = serialize(value, new Set());
	if (json === undefined) {
		throw new TypeError(`canonicalJson: a ${typeof value} has no JSON representation`);
	}
	return json;
}

function serialize(input: unknown, ancestors: Set<object>): string | undefined {
	const value = hasToJson(input) ? input.toJSON() : input;
	switch (typeof value) {
		case 'string':
			return quote(value);
		case 'number':
			return formatNumber(value);
		case 'bigint':
			return value.toString();
		case 'boolean':
			return value ? 'true' : 'false';
	}
	if (value === null) return 'null';
	// undefined, functions and symbols: dropped from objects, null in arrays.
	if (typeof value !== 'object') return undefined;
	if (ancestors.has(value)) throw new TypeError('canonicalJson: circular structure');
	ancestors.add(value);
	try {
		if (Array.isArray(value)) {
			return `[${value.map((item: unknown) => serialize(item, ancestors) ?? 'null').join(',')}]`;
		}
		const record = value as Record<string, unknown>;
		const members: string[] = [];
		for (const key of Object.keys(record).sort(compareCodePoints)) {
			const member = serialize(record[key], ancestors);
			if (member !== undefined) members.push(`${quote(key)}:${member}`);
		}
		return `{${members.join(',')}}`;
	} finally {
		ancestors.delete(value);
	}
}

function hasToJson(value: unknown): value is { toJSON(): unknown } {
	return (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as { toJSON?: unknown }).toJSON === 'function'
	);
}

/** Python escapes '"', '\' and everything outside printable ASCII (space to '~'), per UTF-16 code unit. */
function quote(text: string): string {
	const escaped = text.replace(
		/["\\]|[^\x20-\x7e]/g,
		(char) => SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
	);
	return `"${escaped}"`;
}

function formatNumber(value: number): string {
	if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not valid JSON`);
	// BigInt spells out large integers in full, as Python does for an int (JavaScript would switch to "1e+21").
	if (Number.isInteger(value)) return BigInt(value).toString();
	// Both languages print the shortest round-trip digits; only the switch to exponent form differs
	// (Python below 1e-4, JavaScript below 1e-6) and Python pads the exponent to two digits.
	if (Math.abs(value) >= 1e-4) return String(value);
	const [mantissa, exponent] = value.toExponential().split('e');
	const sign = exponent.startsWith('-') ? '-' : '+';
	return `${mantissa}e${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
}

/** Python orders str keys by code point; JavaScript's default sort compares UTF-16 code units. */
function compareCodePoints(left: string, right: string): number {
	for (let index = 0; index < left.length && index < right.length;) {
		const leftPoint = left.codePointAt(index) ?? 0;
		const rightPoint = right.codePointAt(index) ?? 0;
		if (leftPoint !== rightPoint) return leftPoint - rightPoint;
		index += leftPoint > 0xffff ? 2 : 1;
	}
	return left.length - right.length;
}
