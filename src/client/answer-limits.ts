// How large an answer of the service may be before the nodes stop reading it: one hostile or broken answer must not
// take the n8n process's memory (docs/limits-and-retries.md, "Answer sizes").

import type { RateLimitBucket } from '../api/operations';

const MIB = 1024 * 1024;

/**
 * A transcript download. The sandbox's renderings of a 10-hour recording (7,200 segments) take 0.8 MiB as SRT,
 * 5.9 MiB as a Hebrew PDF and 0.1 MiB as DOCX: ten times the largest of them still fits.
 */
export const MAX_ARTIFACT_BYTES = 64 * MIB;

/** Every other answer is JSON: a list page of 100 jobs takes about 50 KiB. */
export const MAX_JSON_ANSWER_BYTES = 8 * MIB;

/** The largest body accepted in answer to a request of `bucket` with HTTP `status`; errors are JSON whatever was asked. */
export function maxAnswerBytes(bucket: RateLimitBucket, status: number): number {
	return bucket === 'artifacts' && status >= 200 && status < 300
		? MAX_ARTIFACT_BYTES
		: MAX_JSON_ANSWER_BYTES;
}

/** 1536 → "1.5 KiB", 67108864 → "64 MiB": sizes as the error messages give them. */
export function formatBytes(bytes: number): string {
	const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
	let value = bytes;
	let unit = 0;
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024;
		unit++;
	}
	const shown = unit === 0 ? String(value) : String(Math.round(value * 10) / 10);
	return `${shown} ${units[unit]}`;
}
