import fontkit from '@pdf-lib/fontkit';
import bidiFactory from 'bidi-js';
import subsetFont from 'subset-font';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type PDFFont, type PDFPage, PDFDocument, PageSizes, rgb, type RGB } from 'pdf-lib';
import { DOCUMENT_CREATOR, DOCUMENT_DATE } from './metadata';
import { segmentTimeRange } from './timecode';
import type { Transcript } from './types';

const [PAGE_WIDTH, PAGE_HEIGHT] = PageSizes.A4;
const MARGIN = 56;
const TEXT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const FOOTER_BASELINE = 30;

interface TextStyle {
	weight: 'regular' | 'bold';
	size: number;
	lineHeight: number;
	color: RGB;
}

const TITLE: TextStyle = { weight: 'bold', size: 18, lineHeight: 24, color: rgb(0, 0, 0) };
const TIMESTAMP: TextStyle = {
	weight: 'regular',
	size: 9,
	lineHeight: 13,
	color: rgb(0.42, 0.42, 0.42),
};
const BODY: TextStyle = {
	weight: 'regular',
	size: 11,
	lineHeight: 15,
	color: rgb(0.08, 0.08, 0.08),
};
const FOOTER: TextStyle = {
	weight: 'regular',
	size: 9,
	lineHeight: 13,
	color: rgb(0.42, 0.42, 0.42),
};
const GAP_AFTER_TITLE = 14;
const GAP_BETWEEN_SEGMENTS = 8;

/**
 * Noto Sans Hebrew has Hebrew letters only (no Latin, digits or punctuation), so every line is drawn
 * in runs: Hebrew-script characters with Noto Sans Hebrew, everything else with Noto Sans.
 */
type Script = 'hebrew' | 'latin';
type Weight = TextStyle['weight'];
/** Only the fonts a document uses are embedded. */
type FontPair = Partial<Record<Script, PDFFont>>;
type FontSet = Record<Weight, FontPair>;

interface FontFile {
	packageName: string;
	file: string;
	/** A fixed name: pdf-lib would otherwise add a random suffix. */
	subsetName: string;
}

const FONT_FILES: Record<Weight, Record<Script, FontFile>> = {
	regular: {
		latin: {
			packageName: '@embedpdf/fonts-latin',
			file: 'NotoSans-Regular.ttf',
			subsetName: 'TSLATR+NotoSans-Regular',
		},
		hebrew: {
			packageName: '@embedpdf/fonts-hebrew',
			file: 'NotoSansHebrew-Regular.ttf',
			subsetName: 'TSHEBR+NotoSansHebrew-Regular',
		},
	},
	bold: {
		latin: {
			packageName: '@embedpdf/fonts-latin',
			file: 'NotoSans-Bold.ttf',
			subsetName: 'TSLATB+NotoSans-Bold',
		},
		hebrew: {
			packageName: '@embedpdf/fonts-hebrew',
			file: 'NotoSansHebrew-Bold.ttf',
			subsetName: 'TSHEBB+NotoSansHebrew-Bold',
		},
	},
};

/** Page numbers are drawn after the layout, in the regular weight. */
const PAGE_NUMBER_CHARACTERS = '0123456789 /';

const HEBREW_SCRIPT = /\p{Script=Hebrew}/u;
const HEBREW_MARKS = /(?=\p{Script=Hebrew})\p{Mn}/gu;
const bidi = bidiFactory();

function scriptOf(character: string): Script {
	return HEBREW_SCRIPT.test(character) ? 'hebrew' : 'latin';
}

/** The font packages export only metadata; their TTFs sit in `fonts/` beside `dist/`. */
function fontPath({ packageName, file }: FontFile): string {
	return join(dirname(require.resolve(packageName)), '..', 'fonts', file);
}

/**
 * Subsets with HarfBuzz (subset-font) rather than pdf-lib's own `subset: true`: fontkit's subsetter
 * writes a short loca table over Noto Sans's odd-length glyphs and most Latin glyphs come out blank.
 * Ligatures are off because pdf-lib spaces an "fi" ligature as if it were wider than it is.
 */
async function embedSubset(
	document: PDFDocument,
	fontFile: FontFile,
	characters: string,
): Promise<PDFFont> {
	const subset = await subsetFont(await readFile(fontPath(fontFile)), characters, {
		targetFormat: 'sfnt',
	});
	return document.embedFont(subset, {
		subset: false,
		customName: fontFile.subsetName,
		features: { liga: false },
	});
}

/** Embeds, per weight and script, a subset holding the given characters and their RTL mirror images. */
async function embedFonts(
	document: PDFDocument,
	textByWeight: Record<Weight, string>,
): Promise<FontSet> {
	const fonts: FontSet = { regular: {}, bold: {} };
	for (const weight of ['regular', 'bold'] as const) {
		const characters: Record<Script, Set<string>> = { latin: new Set(), hebrew: new Set() };
		// Text is wrapped at any whitespace and drawn with plain spaces.
		for (const character of textByWeight[weight].replace(/\s+/gu, ' ')) {
			characters[scriptOf(character)].add(character);
			const mirrored = bidi.getMirroredCharacter(character);
			if (mirrored) characters[scriptOf(mirrored)].add(mirrored);
		}
		for (const script of ['latin', 'hebrew'] as const) {
			if (characters[script].size === 0) continue;
			fonts[weight][script] = await embedSubset(
				document,
				FONT_FILES[weight][script],
				[...characters[script]].join(''),
			);
		}
	}
	return fonts;
}

function fontFor(fonts: FontPair, script: Script): PDFFont {
	const font = fonts[script];
	if (!font) throw new Error(`No ${script} font was embedded for text that needs one`);
	return font;
}

interface ScriptRun {
	script: Script;
	text: string;
}

function scriptRuns(text: string): ScriptRun[] {
	const runs: ScriptRun[] = [];
	for (const character of text) {
		const script = scriptOf(character);
		const last = runs[runs.length - 1];
		if (last?.script === script) last.text += character;
		else runs.push({ script, text: character });
	}
	return runs;
}

/** Widths at size 1 by font and text: fontkit shapes text on every call, and transcripts repeat their words. */
const unitWidths = new WeakMap<PDFFont, Map<string, number>>();

function runWidth(font: PDFFont, text: string, size: number): number {
	let widths = unitWidths.get(font);
	if (!widths) unitWidths.set(font, (widths = new Map()));
	let width = widths.get(text);
	if (width === undefined) widths.set(text, (width = font.widthOfTextAtSize(text, 1)));
	return width * size;
}

function textWidth(text: string, fonts: FontPair, size: number): number {
	return scriptRuns(text).reduce(
		(width, run) => width + runWidth(fontFor(fonts, run.script), run.text, size),
		0,
	);
}

/** Splits a word wider than the line into pieces that fit. */
function breakWord(word: string, fits: (text: string) => boolean): string[] {
	const pieces: string[] = [];
	let piece = '';
	for (const character of word) {
		if (piece && !fits(piece + character)) {
			pieces.push(piece);
			piece = '';
		}
		piece += character;
	}
	return piece ? [...pieces, piece] : pieces;
}

/**
 * Greedy wrapping in logical (reading) order; each line is reordered for display afterwards. Widths
 * add up word by word (pdf-lib measures advance widths only, without kerning or ligatures).
 */
function wrapText(text: string, fonts: FontPair, style: TextStyle, maxWidth: number): string[] {
	const measure = (candidate: string) => textWidth(candidate, fonts, style.size);
	// Measured on first use: a one-word Hebrew title has no space and may have no Latin font.
	let spaceWidth: number | undefined;
	const lines: string[] = [];
	let lineWidth = 0;
	for (const word of text.split(/\s+/u).filter(Boolean)) {
		const wordWidth = measure(word);
		spaceWidth ??= lines.length > 0 ? measure(' ') : undefined;
		if (spaceWidth !== undefined && lineWidth + spaceWidth + wordWidth <= maxWidth) {
			lines[lines.length - 1] += ` ${word}`;
			lineWidth += spaceWidth + wordWidth;
		} else if (wordWidth <= maxWidth) {
			lines.push(word);
			lineWidth = wordWidth;
		} else {
			const pieces = breakWord(word, (piece) => measure(piece) <= maxWidth);
			lines.push(...pieces);
			lineWidth = measure(pieces[pieces.length - 1]);
		}
	}
	return lines;
}

/** The Unicode bidi algorithm (UAX #9) for one line: the characters in left-to-right display order. */
function visualOrder(line: string, rightToLeft: boolean): string {
	const levels = bidi.getEmbeddingLevels(line, rightToLeft ? 'rtl' : 'ltr');
	return bidi.getReorderedString(line, levels);
}

class PageWriter {
	private page: PDFPage;
	private y = 0;
	readonly pages: PDFPage[] = [];

	constructor(
		private readonly document: PDFDocument,
		private readonly fonts: FontSet,
		private readonly rightToLeft: boolean,
	) {
		this.page = this.addPage();
	}

	private addPage(): PDFPage {
		this.page = this.document.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
		this.pages.push(this.page);
		this.y = PAGE_HEIGHT - MARGIN;
		return this.page;
	}

	/** Starts a new page unless `height` more points fit above the bottom margin. */
	ensureRoom(height: number): void {
		if (this.y - height < MARGIN) this.addPage();
	}

	gap(points: number): void {
		this.y -= points;
	}

	lines(style: TextStyle, text: string): string[] {
		return wrapText(text, this.fonts[style.weight], style, TEXT_WIDTH);
	}

	paragraph(style: TextStyle, lines: string[]): void {
		for (const line of lines) {
			this.ensureRoom(style.lineHeight);
			this.y -= style.lineHeight;
			drawLine(this.page, line, this.fonts[style.weight], style, this.y, this.rightToLeft);
		}
	}
}

/**
 * Draws one line in display order, run by run, left to right; right-aligned for right-to-left text.
 * fontkit (under pdf-lib) lays out Hebrew-script runs right-to-left by itself, so a Hebrew run is
 * handed over reversed back to reading order, and fontkit's reversal puts it in display order again.
 */
function drawLine(
	page: PDFPage,
	line: string,
	fonts: FontPair,
	style: TextStyle,
	baseline: number,
	rightToLeft: boolean,
	align: 'start' | 'center' = 'start',
): void {
	const width = textWidth(line, fonts, style.size);
	let x = rightToLeft ? PAGE_WIDTH - MARGIN - width : MARGIN;
	if (align === 'center') x = (PAGE_WIDTH - width) / 2;
	for (const run of scriptRuns(visualOrder(line, rightToLeft))) {
		const font = fontFor(fonts, run.script);
		const text = run.script === 'hebrew' ? [...run.text].reverse().join('') : run.text;
		page.drawText(text, { x, y: baseline, size: style.size, font, color: style.color });
		x += runWidth(font, run.text, style.size);
	}
}

/**
 * pdf-lib draws glyphs by advance width only and ignores the font's mark positioning, so Hebrew
 * vowel points and cantillation would land beside their letters: the PDF shows the letters without
 * them, as modern Hebrew is usually written. NFC first composes Latin accents into single glyphs.
 */
function printable(text: string): string {
	return text.normalize('NFC').replace(HEBREW_MARKS, '');
}

/** A4 PDF: title, then each segment's time range and text; Hebrew right-to-left and right-aligned; page numbers. */
export async function renderPdf(transcript: Transcript): Promise<Buffer> {
	const document = await PDFDocument.create({ updateMetadata: false });
	document.registerFontkit(fontkit);
	document.setTitle(transcript.title);
	document.setProducer(DOCUMENT_CREATOR);
	document.setCreator(DOCUMENT_CREATOR);
	document.setCreationDate(DOCUMENT_DATE);
	document.setModificationDate(DOCUMENT_DATE);
	const textLanguage = transcript.rightToLeft ? 'he' : transcript.language;
	if (textLanguage) document.setLanguage(textLanguage);

	const title = printable(transcript.title);
	const timeRanges = transcript.segments.map((segment) =>
		segmentTimeRange(segment.startSeconds, segment.endSeconds),
	);
	const texts = transcript.segments.map((segment) => printable(segment.text));
	const fonts = await embedFonts(document, {
		regular: [...timeRanges, ...texts, PAGE_NUMBER_CHARACTERS].join(''),
		bold: title,
	});
	const writer = new PageWriter(document, fonts, transcript.rightToLeft);
	writer.paragraph(TITLE, writer.lines(TITLE, title));
	writer.gap(GAP_AFTER_TITLE);
	timeRanges.forEach((timeRange, index) => {
		const timestampLines = writer.lines(TIMESTAMP, timeRange);
		// Keeps a time range on the same page as the first line of its text.
		writer.ensureRoom(timestampLines.length * TIMESTAMP.lineHeight + BODY.lineHeight);
		writer.paragraph(TIMESTAMP, timestampLines);
		writer.paragraph(BODY, writer.lines(BODY, texts[index]));
		writer.gap(GAP_BETWEEN_SEGMENTS);
	});
	writer.pages.forEach((page, index) => {
		const pageNumber = `${index + 1} / ${writer.pages.length}`;
		drawLine(page, pageNumber, fonts.regular, FOOTER, FOOTER_BASELINE, false, 'center');
	});
	// Plain objects (no object streams) open in the widest range of readers and keep the structure greppable.
	return Buffer.from(await document.save({ useObjectStreams: false }));
}
