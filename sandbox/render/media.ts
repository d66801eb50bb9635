import { open } from 'node:fs/promises';

/** Media files can be 1 GiB; everything the sandbox needs sits in the first bytes. */
const MEDIA_HEAD_BYTES = 64 * 1024;

export type MediaContainer =
	'wav' | 'mp3' | 'aac' | 'ogg' | 'flac' | 'mp4' | 'm4a' | 'mov' | 'webm' | 'mkv';

export interface MediaProbe {
	container: MediaContainer;
	durationSeconds: number;
}

/**
 * Nominal bit rates for containers whose duration is estimated from the file size: typical
 * audio encodes at 128 kbps, lossless FLAC near 800 kbps, and video containers carry a picture too.
 */
const NOMINAL_BITS_PER_SECOND: Record<Exclude<MediaContainer, 'wav'>, number> = {
	mp3: 128_000,
	aac: 128_000,
	ogg: 128_000,
	m4a: 128_000,
	flac: 800_000,
	mp4: 1_000_000,
	mov: 1_000_000,
	webm: 1_000_000,
	mkv: 1_000_000,
};

/** Both mean "length unknown" in a WAV data chunk written by a streaming encoder. */
const UNKNOWN_DATA_SIZES = new Set([0, 0xffffffff]);

function ascii(head: Buffer, offset: number, length: number): string {
	return head.toString('latin1', offset, offset + length);
}

function isMpegAudioFrame(head: Buffer): boolean {
	if (head.length < 2 || head[0] !== 0xff || (head[1] & 0xe0) !== 0xe0) return false;
	const version = (head[1] >> 3) & 0b11;
	const layer = (head[1] >> 1) & 0b11;
	return version !== 0b01 && layer !== 0b00;
}

/** ADTS (raw AAC) shares the sync word; its layer bits are always 00. */
function isAdtsFrame(head: Buffer): boolean {
	return head.length >= 2 && head[0] === 0xff && (head[1] & 0xf6) === 0xf0;
}

function isoBmffContainer(head: Buffer): MediaContainer {
	const majorBrand = ascii(head, 8, 4);
	if (majorBrand === 'qt  ') return 'mov';
	if (majorBrand.startsWith('M4A') || majorBrand.startsWith('M4B')) return 'm4a';
	return 'mp4';
}

/** The container named by the file's magic bytes, or null when it is none the service reads. */
export function sniffContainer(head: Buffer): MediaContainer | null {
	if (
		head.length >= 12 &&
		['RIFF', 'RF64'].includes(ascii(head, 0, 4)) &&
		ascii(head, 8, 4) === 'WAVE'
	)
		return 'wav';
	if (ascii(head, 0, 3) === 'ID3' || isMpegAudioFrame(head)) return 'mp3';
	if (isAdtsFrame(head)) return 'aac';
	if (ascii(head, 0, 4) === 'OggS') return 'ogg';
	if (ascii(head, 0, 4) === 'fLaC') return 'flac';
	if (head.length >= 12 && ascii(head, 4, 4) === 'ftyp') return isoBmffContainer(head);
	if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) {
		return head.subarray(0, 64).includes('webm', 0, 'latin1') ? 'webm' : 'mkv';
	}
	return null;
}

/**
 * Duration of a RIFF/WAVE file from its fmt chunk (byte rate) and data chunk (size), given the
 * head of the file and the file's total size. A data size of 0 or 0xFFFFFFFF (streaming writers,
 * RF64) or one larger than the file means "up to the end of the file". Null when the head holds
 * no usable fmt chunk.
 */
function wavDurationSeconds(head: Buffer, fileSize: number): number | null {
	let byteRate: number | null = null;
	let offset = 12;
	while (offset + 8 <= head.length) {
		const chunkId = ascii(head, offset, 4);
		const chunkSize = head.readUInt32LE(offset + 4);
		const bodyOffset = offset + 8;
		if (chunkId === 'fmt ' && bodyOffset + 12 <= head.length) {
			byteRate = head.readUInt32LE(bodyOffset + 8);
		}
		if (chunkId === 'data') {
			if (!byteRate) return null;
			const available = Math.max(0, fileSize - bodyOffset);
			const dataBytes =
				UNKNOWN_DATA_SIZES.has(chunkSize) || chunkSize > available ? available : chunkSize;
			return dataBytes / byteRate;
		}
		// RIFF chunks are padded to an even length.
		offset = bodyOffset + chunkSize + (chunkSize % 2);
	}
	// The data chunk lies beyond the head (very large metadata): the whole file is a close upper bound.
	return byteRate ? fileSize / byteRate : null;
}

function roundToMilliseconds(seconds: number): number {
	return Math.round(seconds * 1000) / 1000;
}

/** Identifies the container and the duration of a media file, reading only its head. */
export async function probeMedia(filePath: string): Promise<MediaProbe | null> {
	const file = await open(filePath, 'r');
	try {
		const { size } = await file.stat();
		const head = Buffer.alloc(Math.min(MEDIA_HEAD_BYTES, size));
		const { bytesRead } = await file.read(head, 0, head.length, 0);
		const readHead = head.subarray(0, bytesRead);
		const container = sniffContainer(readHead);
		if (container === null) return null;
		const durationSeconds =
			container === 'wav'
				? wavDurationSeconds(readHead, size)
				: (size * 8) / NOMINAL_BITS_PER_SECOND[container];
		if (durationSeconds === null) return null;
		return { container, durationSeconds: roundToMilliseconds(durationSeconds) };
	} finally {
		await file.close();
	}
}
