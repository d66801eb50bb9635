// What a well-formed artifact of each format looks like, checked on the bytes n8n stored.
import JSZip from 'jszip';
import pdfParse from 'pdf-parse';

import type { ArtifactFormat } from '../../../src/artifacts';

export const ARTIFACT_MIME_TYPES: Record<ArtifactFormat, string> = {
	srt: 'application/x-subrip',
	txt: 'text/plain',
	pdf: 'application/pdf',
	docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

/** The transcript text the artifact carries; throws when the bytes are not a valid file of the format. */
export async function artifactText(format: ArtifactFormat, bytes: Buffer): Promise<string> {
	switch (format) {
		case 'txt':
			return bytes.toString('utf8');
		case 'srt': {
			const text = bytes.toString('utf8');
			if (!/^\d+\r?\n\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}/m.test(text)) {
				throw new Error(`Not SRT: ${text.slice(0, 120)}`);
			}
			return text;
		}
		case 'pdf': {
			if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
				throw new Error('Not a PDF (no %PDF- header)');
			return (await pdfParse(bytes)).text;
		}
		case 'docx': {
			const zip = await JSZip.loadAsync(bytes);
			const document = zip.file('word/document.xml');
			if (!document) throw new Error('Not a DOCX (no word/document.xml)');
			return (await document.async('string')).replace(/<[^>]+>/g, '');
		}
	}
}
