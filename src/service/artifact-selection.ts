// Which representation GET .../artifact[.ext] answers with (spec 4.7, 4.8).

import {
	ARTIFACT_FORMATS,
	ARTIFACT_MEDIA_TYPES,
	isArtifactFormat,
	normalizeArtifactFormat,
	type ArtifactFormat,
} from '../artifacts/formats';

export type ArtifactFormatSource = 'path' | 'query' | 'accept' | 'output_format' | 'default';

export interface SelectArtifactFormatInput {
	/** The `{path_format}` of 4.8: only srt, txt, pdf or docx (case-insensitive), no alias. */
	pathFormat?: string | null;
	/** The `format` query parameter: the four formats or `plain_text`. */
	queryFormat?: string | null;
	accept?: string | null;
	/** The job's output_format (`srt` or `plain_text`). */
	outputFormat?: string | null;
}

export type SelectArtifactFormatResult =
	| { ok: true; format: ArtifactFormat; source: ArtifactFormatSource }
	| { ok: false; code: 'unsupported_artifact_format'; source: 'path' | 'query'; value: string };

/** The spec's "default text/plain" when the job names no output_format. */
const DEFAULT_FORMAT: ArtifactFormat = 'txt';

/**
 * Selection order of 4.7: path extension > `format` query > Accept > job output_format. An unsupported path or query value is an
 * error (400 unsupported_artifact_format); an empty one counts as absent. Accept: honour q-values, pick the best supported media
 * type; absent, the any-type wildcard or no supported type → fall through to output_format (the spec's "default text/plain" applies when
 * output_format is absent). When several formats share the best q-value and the fallback is one of them, the fallback stays;
 * otherwise the one whose media range comes first in the header wins.
 */
export function selectArtifactFormat(input: SelectArtifactFormatInput): SelectArtifactFormatResult {
	const pathValue = presentValue(input.pathFormat);
	if (pathValue !== undefined) {
		const format = pathValue.toLowerCase();
		return isArtifactFormat(format)
			? { ok: true, format, source: 'path' }
			: unsupported('path', pathValue);
	}
	const queryValue = presentValue(input.queryFormat);
	if (queryValue !== undefined) {
		const format = normalizeArtifactFormat(queryValue);
		return format ? { ok: true, format, source: 'query' } : unsupported('query', queryValue);
	}
	const outputFormat = normalizeArtifactFormat(input.outputFormat);
	const fallback: SelectArtifactFormatResult = outputFormat
		? { ok: true, format: outputFormat, source: 'output_format' }
		: { ok: true, format: DEFAULT_FORMAT, source: 'default' };
	const accepted = formatPreferredByAccept(input.accept, fallback.format);
	return accepted ? { ok: true, format: accepted, source: 'accept' } : fallback;
}

interface MediaRange {
	type: string;
	subtype: string;
	quality: number;
	position: number;
}

function formatPreferredByAccept(
	accept: string | null | undefined,
	fallback: ArtifactFormat,
): ArtifactFormat | undefined {
	const ranges = parseAccept(accept ?? '');
	const ranked = ARTIFACT_FORMATS.map((format) => ({
		format,
		range: mostSpecificRange(ARTIFACT_MEDIA_TYPES[format], ranges),
	}));
	const bestQuality = Math.max(...ranked.map(({ range }) => range?.quality ?? 0));
	if (bestQuality <= 0) return undefined;
	const best = ranked.filter(({ range }) => range?.quality === bestQuality);
	if (best.length > 1 && best.some(({ format }) => format === fallback)) return undefined;
	// Array.prototype.sort is stable, so equal positions keep ARTIFACT_FORMATS order.
	best.sort((left, right) => (left.range?.position ?? 0) - (right.range?.position ?? 0));
	return best[0].format;
}

/** RFC 9110 12.5.1: a media type takes the q-value of the most specific range that matches it. */
function mostSpecificRange(mediaType: string, ranges: MediaRange[]): MediaRange | undefined {
	const [type, subtype] = mediaType.split('/');
	const specificity = (range: MediaRange): number => {
		if (range.type === type && range.subtype === subtype) return 3;
		if (range.type === type && range.subtype === '*') return 2;
		if (range.type === '*' && range.subtype === '*') return 1;
		return 0;
	};
	let best: MediaRange | undefined;
	for (const range of ranges) {
		const score = specificity(range);
		if (score > 0 && (best === undefined || score > specificity(best))) best = range;
	}
	return best;
}

/** Media ranges with their q-value; ranges that are not type/subtype or carry an invalid q are dropped. */
function parseAccept(accept: string): MediaRange[] {
	const ranges: MediaRange[] = [];
	accept.split(',').forEach((element, position) => {
		const [range, ...parameters] = element.split(';');
		const match = /^([^\s/]+)\/([^\s/]+)$/.exec(range.trim().toLowerCase());
		if (!match || (match[1] === '*' && match[2] !== '*')) return;
		const qParameter = parameters
			.map((parameter) => parameter.trim().toLowerCase())
			.find((parameter) => parameter.startsWith('q='));
		const quality = qParameter === undefined ? 1 : Number(qParameter.slice(2));
		if (!(quality >= 0 && quality <= 1)) return;
		ranges.push({ type: match[1], subtype: match[2], quality, position });
	});
	return ranges;
}

function presentValue(value: string | null | undefined): string | undefined {
	const trimmed = value?.trim();
	return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function unsupported(source: 'path' | 'query', value: string): SelectArtifactFormatResult {
	return { ok: false, code: 'unsupported_artifact_format', source, value };
}
