function splitMilliseconds(seconds: number): {
	hours: string;
	minutes: string;
	seconds: string;
	milliseconds: string;
} {
	const total = Math.round(seconds * 1000);
	const pad = (value: number, width = 2) => String(value).padStart(width, '0');
	return {
		hours: pad(Math.floor(total / 3_600_000)),
		minutes: pad(Math.floor(total / 60_000) % 60),
		seconds: pad(Math.floor(total / 1000) % 60),
		milliseconds: pad(total % 1000, 3),
	};
}

/** `HH:MM:SS,mmm`, as SubRip writes cue times. */
export function srtTimestamp(seconds: number): string {
	const parts = splitMilliseconds(seconds);
	return `${parts.hours}:${parts.minutes}:${parts.seconds},${parts.milliseconds}`;
}

/** `HH:MM:SS`, for readers of the PDF and DOCX transcripts. */
export function clockTime(seconds: number): string {
	const parts = splitMilliseconds(seconds);
	return `${parts.hours}:${parts.minutes}:${parts.seconds}`;
}

/** `HH:MM:SS – HH:MM:SS` (an en dash reads the same way round in right-to-left lines). */
export function segmentTimeRange(startSeconds: number, endSeconds: number): string {
	return `${clockTime(startSeconds)} – ${clockTime(endSeconds)}`;
}
