// Reading the service's SRT (SubRip) transcript into timed cues: the source of the WebVTT file and of the cues the
// nodes put on an item, since the API serves no other timed format (spec 2.4). Strict where a mistake would shift or
// merge subtitles (timestamps, a missing blank line between cues), lenient only about how lines end and a leading BOM.

export interface SubRipCue {
	startMs: number;
	endMs: number;
	/** The cue's lines joined by "\n", exactly as written (no markup is interpreted, right-to-left text untouched). */
	text: string;
}

/** A cue as the nodes put it on an item: times in seconds. A type, not an interface, so that it is a JSON object. */
export type TimedCue = {
	start: number;
	end: number;
	text: string;
};

export class SubRipSyntaxError extends Error {
	constructor(
		/** 1-based line of the SRT text where reading stopped. */
		readonly line: number,
		reason: string,
	) {
		super(`line ${line}: ${reason}`);
		this.name = 'SubRipSyntaxError';
	}
}

const CUE_NUMBER = /^\d+$/;
/** `HH:MM:SS,mmm --> HH:MM:SS,mmm`: SubRip's comma, minutes and seconds below 60, exactly three digits of milliseconds. */
const TIMING =
	/^(\d+):([0-5]\d):([0-5]\d),(\d{3})[ \t]+-->[ \t]+(\d+):([0-5]\d):([0-5]\d),(\d{3})[ \t]*$/;
const EXCERPT_CHARACTERS = 40;

/**
 * The cues of an SRT text, in file order. A cue is an optional cue number, a timing line and its text lines up to the
 * next blank line; its number is not kept (WebVTT and the item's cues do not need it). Throws SubRipSyntaxError,
 * naming the line, for anything else: a block without a timing line, a malformed timestamp, a cue that ends before it
 * starts, or a timing line inside a cue's text (two cues without a blank line between them). An empty text has no cues.
 */
export function parseSubRip(text: string): SubRipCue[] {
	const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
	const cues: SubRipCue[] = [];
	let index = 0;
	while (index < lines.length) {
		if (isBlank(lines[index])) {
			index++;
			continue;
		}
		const numbered = CUE_NUMBER.test(lines[index].trim());
		const timingIndex = numbered ? index + 1 : index;
		const timingLine = lines[timingIndex] ?? '';
		const timing = TIMING.exec(timingLine.trim());
		if (!timing) {
			throw new SubRipSyntaxError(
				timingIndex + 1,
				numbered
					? `expected the timing line "HH:MM:SS,mmm --> HH:MM:SS,mmm" of cue ${lines[index].trim()}, found ${excerpt(timingLine)}`
					: `expected a cue number or a timing line "HH:MM:SS,mmm --> HH:MM:SS,mmm", found ${excerpt(timingLine)}`,
			);
		}
		const startMs = milliseconds(timing.slice(1, 5));
		const endMs = milliseconds(timing.slice(5, 9));
		if (endMs < startMs) {
			throw new SubRipSyntaxError(timingIndex + 1, 'the cue ends before it starts');
		}
		const textLines: string[] = [];
		for (index = timingIndex + 1; index < lines.length && !isBlank(lines[index]); index++) {
			if (TIMING.test(lines[index].trim())) {
				throw new SubRipSyntaxError(
					index + 1,
					'a timing line inside the text of the cue before it: cues must be separated by a blank line',
				);
			}
			textLines.push(lines[index]);
		}
		cues.push({ startMs, endMs, text: textLines.join('\n') });
	}
	return cues;
}

/** The cues as the nodes put them on an item. */
export function timedCues(cues: readonly SubRipCue[]): TimedCue[] {
	return cues.map((cue) => ({ start: cue.startMs / 1000, end: cue.endMs / 1000, text: cue.text }));
}

function isBlank(line: string): boolean {
	return line.trim() === '';
}

function milliseconds([hours, minutes, seconds, millis]: string[]): number {
	return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000 + Number(millis);
}

function excerpt(line: string): string {
	if (line === '') return 'the end of the text or an empty line';
	const shown = [...line];
	return JSON.stringify(
		shown.length > EXCERPT_CHARACTERS ? `${shown.slice(0, EXCERPT_CHARACTERS).join('')}…` : line,
	);
}
