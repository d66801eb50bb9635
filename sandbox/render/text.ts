import { srtTimestamp } from './timecode';
import type { Transcript } from './types';

/** SubRip's own line ending; players and editors of every platform read it. */
const SRT_LINE_END = '\r\n';
/** The usual subtitle line length: a cue of one sentence becomes two short lines. */
const SRT_MAX_LINE_CHARACTERS = 42;
const TXT_SEGMENTS_PER_PARAGRAPH = 4;

/** Greedy word wrap; a word longer than the limit keeps a line of its own. */
function wrapWords(text: string, maxCharacters: number): string[] {
	const lines: string[] = [];
	for (const word of text.split(/\s+/u).filter(Boolean)) {
		const last = lines.length - 1;
		if (last >= 0 && lines[last].length + 1 + word.length <= maxCharacters)
			lines[last] += ' ' + word;
		else lines.push(word);
	}
	return lines;
}

/** Numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, CRLF throughout, UTF-8 without BOM. */
export function renderSrt(transcript: Transcript): Buffer {
	const cues = transcript.segments.map((segment, index) =>
		[
			String(index + 1),
			`${srtTimestamp(segment.startSeconds)} --> ${srtTimestamp(segment.endSeconds)}`,
			...wrapWords(segment.text, SRT_MAX_LINE_CHARACTERS),
		].join(SRT_LINE_END),
	);
	return Buffer.from(cues.join(SRT_LINE_END + SRT_LINE_END) + SRT_LINE_END, 'utf8');
}

/** Title line, blank line, then paragraphs of a few segments each separated by blank lines; LF, UTF-8. */
export function renderTxt(transcript: Transcript): Buffer {
	const paragraphs: string[] = [];
	for (let index = 0; index < transcript.segments.length; index += TXT_SEGMENTS_PER_PARAGRAPH) {
		const group = transcript.segments.slice(index, index + TXT_SEGMENTS_PER_PARAGRAPH);
		paragraphs.push(group.map((segment) => segment.text.trim()).join(' '));
	}
	return Buffer.from([transcript.title, ...paragraphs].join('\n\n') + '\n', 'utf8');
}
