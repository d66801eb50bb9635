// The sandbox renderer's media side (sandbox/render/media): a WAV file's duration, the test fixture that writes
// large WAV files, and which containers it recognises.

import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { transcribeMedia } from '../../sandbox/render';
import { sniffContainer } from '../../sandbox/render/media';
import { makeWav, WAV_HEADER_BYTES, writeWavFile } from '../support/fixtures/media';
import { mediaTranscriber } from '../support/sandbox/transcribe-bytes';

let directory: string;

beforeAll(async () => {
	directory = await mkdtemp(join(tmpdir(), 'render-test-'));
});

afterAll(async () => {
	await rm(directory, { recursive: true, force: true });
});

const { transcribeBytes, transcriptOf } = mediaTranscriber(() => directory);

describe('transcribeMedia: WAV duration', () => {
	it.each([
		{ sampleRate: 8000, channels: 1, bitsPerSample: 16, seconds: 2.5 },
		{ sampleRate: 16000, channels: 1, bitsPerSample: 8, seconds: 4 },
		{ sampleRate: 22050, channels: 2, bitsPerSample: 16, seconds: 1.2 },
		{ sampleRate: 44100, channels: 2, bitsPerSample: 16, seconds: 3 },
		{ sampleRate: 48000, channels: 2, bitsPerSample: 24, seconds: 1.25 },
		{ sampleRate: 96000, channels: 6, bitsPerSample: 32, seconds: 0.5 },
	])('$sampleRate Hz, $channels channel(s), $bitsPerSample bit: $seconds s', async (format) => {
		const wav = makeWav(format);
		const blockAlign = (format.channels * format.bitsPerSample) / 8;
		expect(wav.length).toBe(WAV_HEADER_BYTES + format.seconds * format.sampleRate * blockAlign);
		const transcript = await transcriptOf('clip.wav', wav);
		expect(transcript.durationSeconds).toBe(format.seconds);
	});

	it.each([0, 0xffffffff])(
		'takes the data size from the file when the header says %d (streaming WAV)',
		async (size) => {
			const wav = makeWav({ seconds: 2, sampleRate: 8000 });
			wav.writeUInt32LE(size, 40);
			expect((await transcriptOf('stream.wav', wav)).durationSeconds).toBe(2);
		},
	);

	it('uses the bytes present when the declared data size runs past the end of the file', async () => {
		const wav = makeWav({ seconds: 3, sampleRate: 8000 }).subarray(0, WAV_HEADER_BYTES + 16000);
		expect((await transcriptOf('cut.wav', wav)).durationSeconds).toBe(1);
	});

	it('walks past other chunks (odd-sized, padded) to the data chunk', async () => {
		const wav = makeWav({ seconds: 1.5, sampleRate: 8000 });
		const list = Buffer.concat([
			Buffer.from('LIST', 'latin1'),
			Buffer.from([5, 0, 0, 0]),
			Buffer.from('INFOx\0', 'latin1'),
		]);
		const withList = Buffer.concat([wav.subarray(0, 36), list, wav.subarray(36)]);
		expect((await transcriptOf('tagged.wav', withList)).durationSeconds).toBe(1.5);
	});

	it('fails a WAV file without audio, or without a fmt chunk, as unreadable_media', async () => {
		const headerOnly = makeWav({ seconds: 0 });
		expect(headerOnly.length).toBe(WAV_HEADER_BYTES);
		expect(await transcribeBytes('empty.wav', headerOnly)).toEqual({
			ok: false,
			reason: 'unreadable_media',
		});
		const noFormat = Buffer.concat([
			Buffer.from('RIFF\0\0\0\0WAVEdata\x04\0\0\0', 'latin1'),
			Buffer.alloc(4),
		]);
		expect(await transcribeBytes('broken.wav', noFormat)).toEqual({
			ok: false,
			reason: 'unreadable_media',
		});
	});
});

describe('test/support/fixtures/media writeWavFile', () => {
	it('streams a file of an exact byte size whose duration follows from it', async () => {
		const filePath = join(directory, 'sized.wav');
		const bytes = 3 * 1024 * 1024 + WAV_HEADER_BYTES;
		expect(await writeWavFile(filePath, { bytes })).toBe(bytes);
		expect((await stat(filePath)).size).toBe(bytes);
		const result = await transcribeMedia({
			filePath,
			filename: 'sized.wav',
			contentType: 'audio/wav',
			sizeBytes: bytes,
			translateToHebrew: false,
			userPrompt: null,
			modelTier: 'standard',
		});
		// 16 kHz mono 16-bit by default: 32 000 bytes per second.
		expect(result.ok && result.transcript.durationSeconds).toBe((3 * 1024 * 1024) / 32000);
	});

	it('writes the same bytes as makeWav for a duration', async () => {
		const filePath = join(directory, 'timed.wav');
		const format = { sampleRate: 8000, channels: 2, bitsPerSample: 16 };
		const size = await writeWavFile(filePath, { seconds: 75, ...format });
		expect(size).toBe(WAV_HEADER_BYTES + 75 * 8000 * 4);
		expect((await readFile(filePath)).equals(makeWav({ seconds: 75, ...format }))).toBe(true);
	});
});

describe('container sniffing', () => {
	const heads: Array<[string, Buffer]> = [
		['wav', makeWav({ seconds: 0.1 })],
		['mp3', Buffer.concat([Buffer.from('ID3\x04\0\0\0\0\0\x0a', 'latin1'), Buffer.alloc(10)])],
		['mp3', Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0])],
		['aac', Buffer.from([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc])],
		['ogg', Buffer.from('OggS\0\x02\0\0\0\0\0\0\0\0', 'latin1')],
		['flac', Buffer.from('fLaC\0\0\0\x22', 'latin1')],
		['mp4', Buffer.from('\0\0\0\x20ftypisom\0\0\x02\0isomiso2mp41', 'latin1')],
		['m4a', Buffer.from('\0\0\0\x20ftypM4A \0\0\0\0M4A mp42isom', 'latin1')],
		['mov', Buffer.from('\0\0\0\x14ftypqt  \0\0\x02\0qt  ', 'latin1')],
		[
			'webm',
			Buffer.from('\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm\x42\x87\x81\x04', 'latin1'),
		],
		[
			'mkv',
			Buffer.from(
				'\x1a\x45\xdf\xa3\xa3\x42\x86\x81\x01\x42\x82\x88matroska\x42\x87\x81\x04',
				'latin1',
			),
		],
	];

	it.each(heads)('recognises %s', (container, head) => {
		expect(sniffContainer(head)).toBe(container);
	});

	const junk: Array<[string, Buffer]> = [
		['text', Buffer.from('hello, this is not audio\n', 'utf8')],
		['zeros', Buffer.alloc(4096)],
		['a PDF', Buffer.from('%PDF-1.7\n%âãÏÓ\n', 'latin1')],
		['a PNG', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
		['RIFF that is not WAVE', Buffer.from('RIFF\x04\0\0\0AVI LIST', 'latin1')],
		['a reserved MPEG sync', Buffer.from([0xff, 0xe8, 0x00, 0x00])],
		['a single byte', Buffer.from([0xff])],
	];

	it.each(junk)('fails %s as unreadable_media', async (_name, bytes) => {
		expect(sniffContainer(bytes)).toBeNull();
		expect(await transcribeBytes('upload.mp3', bytes)).toEqual({
			ok: false,
			reason: 'unreadable_media',
		});
	});

	it('estimates the duration of compressed media from its size', async () => {
		// 128 kbps for MP3: 160 000 bytes are 10 seconds.
		const mp3 = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(160_000 - 4)]);
		expect((await transcriptOf('talk.mp3', mp3)).durationSeconds).toBe(10);
		// 1 Mbps for video containers: 250 000 bytes are 2 seconds.
		const mp4 = Buffer.concat([heads[6][1], Buffer.alloc(250_000 - heads[6][1].length)]);
		expect((await transcriptOf('talk.mp4', mp4)).durationSeconds).toBe(2);
	});
});
