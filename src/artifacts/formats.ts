// The four artifact representations of spec 2.4 and the download name of docs/api-notes.md ("Content-Disposition"),
// and the formats the nodes download: those four and WebVTT, which they build from the SRT.

export const ARTIFACT_FORMATS = ['srt', 'txt', 'pdf', 'docx'] as const;
export type ArtifactFormat = (typeof ARTIFACT_FORMATS)[number];

export const ARTIFACT_MEDIA_TYPES: Record<ArtifactFormat, string> = {
	srt: 'application/x-subrip',
	txt: 'text/plain',
	pdf: 'application/pdf',
	docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

/** What a node can download: the service's four formats, and WebVTT (`vtt`), made from the SRT (webvtt.ts). */
export const DOWNLOAD_FORMATS = [...ARTIFACT_FORMATS, 'vtt'] as const;
export type DownloadFormat = (typeof DOWNLOAD_FORMATS)[number];

export const DOWNLOAD_MEDIA_TYPES: Record<DownloadFormat, string> = {
	...ARTIFACT_MEDIA_TYPES,
	vtt: 'text/vtt',
};

export function isDownloadFormat(value: string): value is DownloadFormat {
	return (DOWNLOAD_FORMATS as readonly string[]).includes(value);
}

/** The service's artifact a download format is made from: WebVTT from the SRT, every other format from itself. */
export function sourceArtifactFormat(format: DownloadFormat): ArtifactFormat {
	return format === 'vtt' ? 'srt' : format;
}

/** A download asked for: a format, or 'job_default', which leaves the choice to the job's output_format. */
export type ArtifactChoice = DownloadFormat | 'job_default';

/** What one download step is asked for: files in these formats, and the timed cues or not. */
export interface TranscriptRequest {
	choices: readonly ArtifactChoice[];
	cues: boolean;
}

/** The service's artifact a choice is served from ('job_default' is the job's, unknown until it is served). */
export function downloadSource(choice: ArtifactChoice): ArtifactFormat | 'job_default' {
	return choice === 'job_default' ? choice : sourceArtifactFormat(choice);
}

/**
 * How many downloads a request costs at most: each of the service's artifacts once (SRT for SRT and WebVTT alike), and
 * one more SRT for cues beside none (Job Default beside cues counted as two).
 */
export function downloadsFor(request: TranscriptRequest): number {
	const sources = new Set(request.choices.map(downloadSource));
	return sources.size + (request.cues && !sources.has('srt') ? 1 : 0);
}

/** `plain_text` is how a job's output_format names the txt artifact (2.3, 2.4). */
const FORMAT_ALIASES: ReadonlyMap<string, ArtifactFormat> = new Map([['plain_text', 'txt']]);

export function isArtifactFormat(value: string): value is ArtifactFormat {
	return (ARTIFACT_FORMATS as readonly string[]).includes(value);
}

/** 'plain_text' → 'txt'; trims; case-insensitive; anything else → undefined. */
export function normalizeArtifactFormat(
	value: string | null | undefined,
): ArtifactFormat | undefined {
	if (typeof value !== 'string') return undefined;
	const key = value.trim().toLowerCase();
	return isArtifactFormat(key) ? key : FORMAT_ALIASES.get(key);
}

/** The format of a Content-Type / Accept media type; parameters such as `; charset=utf-8` are ignored. */
export function formatForMediaType(mediaType: string): ArtifactFormat | undefined {
	const essence = mediaType.split(';')[0].trim().toLowerCase();
	return ARTIFACT_FORMATS.find((format) => ARTIFACT_MEDIA_TYPES[format] === essence);
}

/** uploaded filename's stem + '.' + format extension ('clip.final.wav' → 'clip.final.srt'; no stem → 'transcript.srt'). */
export function artifactFileName(
	uploadedFilename: string | null | undefined,
	format: ArtifactFormat,
): string {
	// A client may send a path; only its last segment names the file.
	const baseName = (uploadedFilename ?? '').split(/[/\\]/).pop() ?? '';
	const lastDot = baseName.lastIndexOf('.');
	const stem = (lastDot === -1 ? baseName : baseName.slice(0, lastDot)).trim();
	return `${stem === '' ? 'transcript' : stem}.${format}`;
}
