// The sandbox renderer's artifact formats (sandbox/render, renderArtifact): SRT, TXT, PDF and DOCX, each read back by
// a strict reader or a real parser (pdf-parse, JSZip).

import JSZip from 'jszip';
import pdfParse from 'pdf-parse';

import { mockTranscript, renderArtifact, type Transcript } from '../../sandbox/render';
import { MEETING_CORPUS } from '../../sandbox/render/corpus';
import { buildTranscript } from '../../sandbox/render/transcript';

const SMALL_TRANSCRIPT: Transcript = {
	language: 'en',
	dialect: 'en-US',
	durationSeconds: 3725.5,
	title: 'Weekly sync',
	rightToLeft: false,
	segments: [
		{ startSeconds: 0, endSeconds: 4.25, text: 'Hello and welcome.' },
		{
			startSeconds: 4.25,
			endSeconds: 3725.5,
			text: 'This cue is long enough that a subtitle player shows it on two lines.',
		},
	],
};

interface SrtCue {
	index: number;
	startMilliseconds: number;
	endMilliseconds: number;
	text: string;
}

/** A strict SubRip reader: CRLF only, numbered cues from 1, exact time format, non-empty text. */
function parseSrt(bytes: Buffer): SrtCue[] {
	expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
	const source = bytes.toString('utf8');
	expect(source.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
	expect(source.endsWith('\r\n')).toBe(true);
	expect(source.endsWith('\r\n\r\n')).toBe(false);
	const toMilliseconds = (time: string) => {
		const [, hours, minutes, seconds, milliseconds] =
			/^(\d{2}):([0-5]\d):([0-5]\d),(\d{3})$/.exec(time) ?? [];
		if (milliseconds === undefined) throw new Error(`bad SRT time ${time}`);
		return (
			((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000 + Number(milliseconds)
		);
	};
	return source
		.slice(0, -2)
		.split('\r\n\r\n')
		.map((block, position) => {
			const [number, times, ...textLines] = block.split('\r\n');
			expect(number).toBe(String(position + 1));
			const [start, end, ...rest] = times.split(' --> ');
			expect(rest).toEqual([]);
			expect(textLines.length).toBeGreaterThan(0);
			for (const line of textLines) expect(line.trim()).toBe(line);
			for (const line of textLines) expect(line).not.toBe('');
			return {
				index: Number(number),
				startMilliseconds: toMilliseconds(start),
				endMilliseconds: toMilliseconds(end),
				text: textLines.join(' '),
			};
		});
}

describe('SRT', () => {
	it('writes exact SubRip bytes', async () => {
		const srt = await renderArtifact('srt', SMALL_TRANSCRIPT);
		expect(srt.toString('utf8')).toBe(
			'1\r\n00:00:00,000 --> 00:00:04,250\r\nHello and welcome.\r\n\r\n' +
				'2\r\n00:00:04,250 --> 01:02:05,500\r\nThis cue is long enough that a subtitle\r\nplayer shows it on two lines.\r\n',
		);
	});

	it.each(['board_meeting.wav', 'ראיון.wav'])(
		'parses back into the transcript of %s',
		async (filename) => {
			const transcript = buildTranscript({
				filename,
				translateToHebrew: false,
				userPrompt: 'Kubernetes, Grafana',
				modelTier: 'standard',
				durationSeconds: 187.337,
			});
			const cues = parseSrt(await renderArtifact('srt', transcript));
			expect(cues).toEqual(
				transcript.segments.map((segment, position) => ({
					index: position + 1,
					startMilliseconds: Math.round(segment.startSeconds * 1000),
					endMilliseconds: Math.round(segment.endSeconds * 1000),
					text: segment.text,
				})),
			);
			expect(cues[cues.length - 1].endMilliseconds).toBe(187_337);
		},
	);
});

describe('TXT', () => {
	it('writes the title, a blank line and paragraphs', async () => {
		const txt = await renderArtifact('txt', SMALL_TRANSCRIPT);
		expect(txt.toString('utf8')).toBe(
			'Weekly sync\n\nHello and welcome. This cue is long enough that a subtitle player shows it on two lines.\n',
		);
	});

	it('groups four segments to a paragraph, in UTF-8', async () => {
		const transcript = buildTranscript({
			filename: 'ראיון.wav',
			translateToHebrew: false,
			userPrompt: null,
			modelTier: 'standard',
			durationSeconds: 45,
		});
		const text = (await renderArtifact('txt', transcript)).toString('utf8');
		const sentences = MEETING_CORPUS.slice(0, 9).map((sentence) => sentence.he);
		expect(text).toBe(
			[
				'ראיון',
				sentences.slice(0, 4).join(' '),
				sentences.slice(4, 8).join(' '),
				sentences[8],
			].join('\n\n') + '\n',
		);
	});
});

describe('PDF', () => {
	const longTranscript = (filename: string) =>
		buildTranscript({
			filename,
			translateToHebrew: false,
			userPrompt: 'Kubernetes, Grafana',
			modelTier: 'standard',
			durationSeconds: 600,
		});

	it('is a valid A4 PDF over several pages with extractable English text and an embedded font', async () => {
		const transcript = longTranscript('board_meeting.wav');
		const pdf = await renderArtifact('pdf', transcript);
		expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
		expect(pdf.subarray(-6).toString('latin1')).toMatch(/%%EOF\s*$/);
		const bytes = pdf.toString('latin1');
		expect(bytes).toContain('/FontFile2');
		expect(bytes).toContain('/TSLATR+NotoSans-Regular');
		expect(bytes).toContain('/TSLATB+NotoSans-Bold');
		// Only the fonts a document uses are embedded: no Hebrew here.
		expect(bytes).not.toContain('NotoSansHebrew');
		expect(bytes).toContain('/MediaBox [ 0 0 595.28 841.89 ]');

		const parsed = await pdfParse(pdf);
		expect(parsed.numpages).toBeGreaterThan(1);
		expect(parsed.info.Title).toBe('board_meeting');
		const lines = parsed.text.split('\n');
		expect(lines).toContain('board_meeting');
		expect(lines).toContain('00:00:00 – 00:00:05');
		expect(lines).toContain('00:09:55 – 00:10:00');
		for (let page = 1; page <= parsed.numpages; page++)
			expect(lines).toContain(`${page} / ${parsed.numpages}`);
		// Lines are wrapped, so compare the text with whitespace removed.
		const flat = parsed.text.replace(/\s+/g, '');
		for (const segment of transcript.segments)
			expect(flat).toContain(segment.text.replace(/\s+/g, ''));
	});

	it('renders Hebrew right to left with an embedded Hebrew font', async () => {
		const pdf = await renderArtifact('pdf', longTranscript('ראיון.wav'));
		const bytes = pdf.toString('latin1');
		expect(bytes.match(/\/FontFile2/g)).toHaveLength(3);
		expect(bytes).toContain('/TSHEBR+NotoSansHebrew-Regular');
		expect(bytes).toContain('/TSHEBB+NotoSansHebrew-Bold');
		// Digits, punctuation and "Kubernetes" come from Noto Sans: Noto Sans Hebrew has only Hebrew letters.
		expect(bytes).toContain('/TSLATR+NotoSans-Regular');

		const parsed = await pdfParse(pdf);
		expect(parsed.numpages).toBeGreaterThan(1);
		const lines = parsed.text.split('\n');
		expect(lines).toContain('ראיון');
		/*
		 * The text extractor (pdf.js) writes a line's pieces in the order they stand on the page, left
		 * to right, and puts the letters of each Hebrew piece back into reading order. So a line reads
		 * here as the page does from left to right: the sentence's last word and its full stop first.
		 * A reader, reading from the right, sees "נתחיל בעדכון קצר על המצב של הפרויקט."
		 */
		expect(lines).toContain('.הפרויקט של המצב על קצר בעדכון נתחיל');
		expect(lines).toContain('.Kubernetes, Grafana על גם נדבר .היום שהגעתם לכולכם ותודה ,טוב בוקר');
		// In a right-to-left line the earlier time stands on the right.
		expect(lines).toContain('00:00:05 – 00:00:00');
	});

	it('draws pointed Hebrew without its points, which pdf-lib cannot position', async () => {
		const transcript = mockTranscript({
			filename: 'שיחה.wav',
			translateToHebrew: false,
			userPrompt: 'שָׁלוֹם',
		});
		const parsed = await pdfParse(await renderArtifact('pdf', transcript));
		expect(parsed.text).toContain('שלום');
		expect(parsed.text).not.toMatch(/\p{Mn}/u);
	});

	it('gives the same bytes for the same transcript', async () => {
		const transcript = mockTranscript({
			filename: 'call.wav',
			translateToHebrew: true,
			userPrompt: null,
		});
		const first = await renderArtifact('pdf', transcript);
		expect((await renderArtifact('pdf', transcript)).equals(first)).toBe(true);
		expect(first.toString('latin1')).toContain('/CreationDate (D:20260101000000Z)');
	});
});

/** Each `<w:p>` of word/document.xml with its `w:pPr` and the concatenated, unescaped text of its `<w:t>`s. */
function docxParagraphs(documentXml: string): Array<{ properties: string; text: string }> {
	const unescape = (text: string) =>
		text
			.replace(/&lt;/g, '<')
			.replace(/&gt;/g, '>')
			.replace(/&quot;/g, '"')
			.replace(/&apos;/g, "'")
			.replace(/&amp;/g, '&');
	return [...documentXml.matchAll(/<w:p>(.*?)<\/w:p>/gs)].map(([, body]) => ({
		properties: /<w:pPr>(.*?)<\/w:pPr>/s.exec(body)?.[1] ?? '',
		text: [...body.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>|<w:br\/>/g)]
			.map(([match, text]) => (match === '<w:br/>' ? '\n' : unescape(text)))
			.join(''),
	}));
}

async function unzipDocx(docx: Buffer) {
	const zip = await JSZip.loadAsync(docx);
	const read = async (name: string) => {
		const entry = zip.file(name);
		if (!entry) throw new Error(`${name} is missing from the DOCX`);
		return entry.async('string');
	};
	return { zip, read };
}

describe('DOCX', () => {
	it('is a WordprocessingML package with a title and one paragraph per segment', async () => {
		const transcript = buildTranscript({
			filename: 'board_meeting.wav',
			translateToHebrew: false,
			userPrompt: "Acme & Sons, O'Brien",
			modelTier: 'standard',
			durationSeconds: 20,
		});
		const docx = await renderArtifact('docx', transcript);
		expect(docx.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))).toBe(true);
		const { read } = await unzipDocx(docx);
		expect(await read('[Content_Types].xml')).toContain(
			'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"',
		);
		expect(await read('_rels/.rels')).toContain('Target="word/document.xml"');
		const documentXml = await read('word/document.xml');
		expect(docxParagraphs(documentXml)).toEqual([
			{ properties: '<w:pStyle w:val="Title"/>', text: 'board_meeting' },
			...transcript.segments.map(() => ({
				properties: '<w:spacing w:after="120"/>',
				text: expect.any(String),
			})),
		]);
		expect(
			docxParagraphs(documentXml)
				.slice(1)
				.map((paragraph) => paragraph.text),
		).toEqual([
			"00:00:00 – 00:00:05\nGood morning, and thank you all for being here today. We will also talk about Acme & Sons, O'Brien.",
			"00:00:05 – 00:00:10\nLet's start with a quick update on where the project stands.",
			'00:00:10 – 00:00:15\nOver the last two weeks we finished the first version of the design.',
			'00:00:15 – 00:00:20\nThe feedback from our early users has been very encouraging.',
		]);
		expect(documentXml).not.toContain('<w:bidi/>');
		expect(documentXml).not.toContain('<w:rtl/>');
		expect(documentXml).toContain('<w:rFonts w:ascii="Arial" w:cs="Arial" w:hAnsi="Arial"/>');
		expect(documentXml).toContain('<w:pgSz w:w="11906" w:h="16838"');
	});

	it('marks Hebrew paragraphs bidirectional and their runs right-to-left', async () => {
		const transcript = buildTranscript({
			filename: 'ראיון.wav',
			translateToHebrew: false,
			userPrompt: null,
			modelTier: 'standard',
			durationSeconds: 10,
		});
		const { read } = await unzipDocx(await renderArtifact('docx', transcript));
		const documentXml = await read('word/document.xml');
		const paragraphs = docxParagraphs(documentXml);
		expect(paragraphs.map((paragraph) => paragraph.text)).toEqual([
			'ראיון',
			`00:00:00 – 00:00:05\n${MEETING_CORPUS[0].he}`,
			`00:00:05 – 00:00:10\n${MEETING_CORPUS[1].he}`,
		]);
		for (const paragraph of paragraphs) expect(paragraph.properties).toContain('<w:bidi/>');
		// Title, then a time run and a text run per segment: five runs, all right-to-left, Hebrew-tagged.
		expect(documentXml.match(/<w:r>/g)).toHaveLength(5);
		expect(documentXml.match(/<w:rtl\/><w:lang w:bidi="he-IL"\/>/g)).toHaveLength(5);
		expect(await read('docProps/core.xml')).toContain('<dc:title>ראיון</dc:title>');
	});

	it('gives the same bytes for the same transcript, dated 2026-01-01', async () => {
		const transcript = mockTranscript({
			filename: 'call.wav',
			translateToHebrew: false,
			userPrompt: null,
		});
		const first = await renderArtifact('docx', transcript);
		expect((await renderArtifact('docx', transcript)).equals(first)).toBe(true);
		const { zip, read } = await unzipDocx(first);
		const coreXml = await read('docProps/core.xml');
		expect(coreXml).toContain(
			'<dcterms:created xsi:type="dcterms:W3CDTF">2026-01-01T00:00:00Z</dcterms:created>',
		);
		expect(coreXml).toContain(
			'<dcterms:modified xsi:type="dcterms:W3CDTF">2026-01-01T00:00:00Z</dcterms:modified>',
		);
		for (const entry of Object.values(zip.files))
			expect(entry.date.toISOString()).toBe('2026-01-01T00:00:00.000Z');
	});
});
