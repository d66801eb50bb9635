import { Document, HeadingLevel, Packer, Paragraph, TextRun, type IRunOptions } from 'docx';
import JSZip from 'jszip';
import { DOCUMENT_CREATOR, DOCUMENT_DATE } from './metadata';
import { segmentTimeRange } from './timecode';
import type { Transcript } from './types';

/**
 * Arial has Hebrew glyphs on Windows and macOS, and LibreOffice substitutes the metric-compatible
 * Liberation Sans, which has them too; set for Latin (ascii/hAnsi) and complex-script (cs) text.
 */
const FONT = 'Arial';
/** Half-points, as WordprocessingML measures font sizes. */
const BODY_SIZE = 22;
const TITLE_SIZE = 36;
const TIMESTAMP_COLOR = '6B6B6B';
/** A4 in twentieths of a point. */
const A4_PAGE = { width: 11906, height: 16838 };

function runOptions(rightToLeft: boolean, options: IRunOptions): IRunOptions {
	return {
		font: { ascii: FONT, hAnsi: FONT, cs: FONT },
		size: BODY_SIZE,
		sizeComplexScript: BODY_SIZE,
		...(rightToLeft ? { rightToLeft: true, language: { bidirectional: 'he-IL' } } : {}),
		...options,
	};
}

function buildDocument(transcript: Transcript): Document {
	const { rightToLeft } = transcript;
	// Left-to-right paragraphs get no w:bidi element at all rather than w:bidi="false".
	const direction = rightToLeft ? { bidirectional: true } : {};
	const title = new Paragraph({
		heading: HeadingLevel.TITLE,
		...direction,
		children: [
			new TextRun(
				runOptions(rightToLeft, {
					text: transcript.title,
					bold: true,
					boldComplexScript: true,
					size: TITLE_SIZE,
					sizeComplexScript: TITLE_SIZE,
				}),
			),
		],
	});
	const segments = transcript.segments.map(
		(segment) =>
			new Paragraph({
				...direction,
				spacing: { after: 120 },
				children: [
					new TextRun(
						runOptions(rightToLeft, {
							text: segmentTimeRange(segment.startSeconds, segment.endSeconds),
							color: TIMESTAMP_COLOR,
						}),
					),
					new TextRun(runOptions(rightToLeft, { text: segment.text, break: 1 })),
				],
			}),
	);
	return new Document({
		creator: DOCUMENT_CREATOR,
		lastModifiedBy: DOCUMENT_CREATOR,
		title: transcript.title,
		sections: [{ properties: { page: { size: A4_PAGE } }, children: [title, ...segments] }],
	});
}

/** docx stamps the current time into docProps/core.xml and into every zip entry; both get DOCUMENT_DATE instead. */
async function withFixedDates(docx: Buffer): Promise<Buffer> {
	const source = await JSZip.loadAsync(docx);
	const fixed = new JSZip();
	const isoDate = DOCUMENT_DATE.toISOString().replace(/\.\d{3}Z$/u, 'Z');
	for (const entry of Object.values(source.files)) {
		if (entry.dir) continue;
		let content: Buffer | string = await entry.async('nodebuffer');
		if (entry.name === 'docProps/core.xml') {
			content = content
				.toString('utf8')
				.replace(/(<dcterms:(?:created|modified)[^>]*>)[^<]*(<\/dcterms:)/gu, `$1${isoDate}$2`);
		}
		fixed.file(entry.name, content, { date: DOCUMENT_DATE, createFolders: false });
	}
	return fixed.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** DOCX: a title, then one paragraph per segment (time range, line break, text); Hebrew as bidi RTL runs. */
export async function renderDocx(transcript: Transcript): Promise<Buffer> {
	return withFixedDates(await Packer.toBuffer(buildDocument(transcript)));
}
