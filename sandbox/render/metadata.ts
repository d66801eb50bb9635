/** Creation and modification date of every PDF and DOCX, fixed so that a transcript always gives the same bytes. */
export const DOCUMENT_DATE = new Date('2026-01-01T00:00:00.000Z');

export const DOCUMENT_CREATOR = 'Transcription Service sandbox';
