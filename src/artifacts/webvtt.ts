// Writing WebVTT (W3C WebVTT, the format of HTML5's <track>) from the cues of the service's SRT, which the API serves
// in place of a VTT of its own. The file is what the W3C's syntax asks of a file, not only what parsers accept.
import type { SubRipCue } from './subrip';

/**
 * `WEBVTT`, then one block per cue: `HH:MM:SS.mmm --> HH:MM:SS.mmm` and the cue's lines, blocks separated by a blank
 * line, LF line ends, no identifiers or settings. The text is written as text: `&`, `<` and `>` as character
 * references, so nothing in it reads as a tag and `-->` cannot appear in a cue. Cues are ordered by start time (stable),
 * as WebVTT requires; a cue that ends when it starts lasts 1 ms, since WebVTT wants its end after its start.
 */
export function formatWebVtt(cues: readonly SubRipCue[]): string {
	const blocks = [...cues]
		.sort((left, right) => left.startMs - right.startMs)
		.map((cue) => {
			const timing = `${timestamp(cue.startMs)} --> ${timestamp(Math.max(cue.endMs, cue.startMs + 1))}`;
			return cue.text === '' ? timing : `${timing}\n${escapeCueText(cue.text)}`;
		});
	return ['WEBVTT', ...blocks].join('\n\n') + '\n';
}

/** Cue text with `&`, `<` and `>` as the character references WebVTT's cue text parser reads back. */
export function escapeCueText(text: string): string {
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `HH:MM:SS.mmm`; hours grow past two digits for a recording of 100 hours or more. */
function timestamp(totalMs: number): string {
	const pad = (value: number, width = 2) => String(value).padStart(width, '0');
	const hours = Math.floor(totalMs / 3_600_000);
	const minutes = Math.floor(totalMs / 60_000) % 60;
	const seconds = Math.floor(totalMs / 1000) % 60;
	return `${pad(hours)}:${pad(minutes)}:${pad(seconds)}.${pad(totalMs % 1000, 3)}`;
}
