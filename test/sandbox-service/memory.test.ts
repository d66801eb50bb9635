// Uploads stream to disk, so a 1 GiB PUT must not grow the sandbox process by more than a few MiB.
// The sandbox runs in its own process here (as `npm run sandbox` does); its RSS is read from /proc, so the
// client's buffers in this process do not count. Measured here: ~25 MiB for 256 MiB, 1 GiB and 3 GiB alike, about
// half of it V8's young generation growing to its default size (12 MiB with --max-semi-space-size=1): a constant,
// not a copy of the body. So the test bounds the total and, the real proof of streaming, what 1 GiB adds over 64 MiB.
// The bounds sit far from both sides: a buffered body adds ~1,000 MiB, while a loaded CI machine that runs other suites
// beside this one delays the sandbox's garbage collection by a few MiB (one CI run saw 15 MiB extra for 1 GiB).

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { api, createSlot } from '../support/sandbox/client';

const ROOT = path.resolve(__dirname, '../..');
const MiB = 1024 * 1024;
const SMALL = 64 * MiB;
const LARGE = 1024 * MiB;
const MAX_GROWTH_MIB = 64;
/** What 16 times more bytes may add: a buffered body would add ~960 MiB. */
const MAX_EXTRA_FOR_LARGE_MIB = 32;

function zeroes(total: number): Readable {
	const chunk = Buffer.alloc(MiB);
	return Readable.from(
		(function* () {
			for (let sent = 0; sent < total; sent += MiB) yield chunk;
		})(),
		{ objectMode: false },
	);
}

function residentBytes(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status);
	if (!kib) throw new Error(`No VmRSS for ${pid}`);
	return Number(kib[1]) * 1024;
}

async function startSandboxProcess(): Promise<{
	child: ChildProcess;
	baseUrl: string;
	key: string;
}> {
	// node itself (not npx/tsx wrappers) so the pid we measure is the server's.
	const child = spawn(
		process.execPath,
		['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', '--quiet'],
		{
			cwd: ROOT,
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	const readyLine = await new Promise<string>((resolve, reject) => {
		let stdout = '';
		child.stdout?.on('data', (chunk: Buffer) => {
			stdout += chunk.toString('utf8');
			const newline = stdout.indexOf('\n');
			if (newline >= 0) resolve(stdout.slice(0, newline));
		});
		child.once('exit', (code) =>
			reject(new Error(`sandbox exited with ${code} before it was ready`)),
		);
	});
	const ready = JSON.parse(readyLine) as {
		base_url: string;
		keys: { platinum_live: { key: string } };
	};
	return { child, baseUrl: ready.base_url, key: ready.keys.platinum_live.key };
}

describe('uploadBinary memory (bytes stream to disk)', () => {
	let sandbox: Awaited<ReturnType<typeof startSandboxProcess>>;

	beforeAll(async () => {
		sandbox = await startSandboxProcess();
	});

	afterAll(async () => {
		const exited = new Promise((resolve) => sandbox.child.once('exit', resolve));
		sandbox.child.kill('SIGTERM');
		await exited;
	});

	async function upload(size: number): Promise<void> {
		const slot = await createSlot(sandbox.baseUrl, sandbox.key, {
			filename: 'big.wav',
			size_bytes: size,
		});
		const response = await api(sandbox.baseUrl, {
			method: 'PUT',
			path: slot.upload_url,
			key: sandbox.key,
			body: zeroes(size),
			headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) },
		});
		expect(response.status).toBe(200);
		expect(response.json).toEqual({ ok: true, bytes_received: size });
	}

	test(`a 1 GiB upload grows the sandbox by less than ${MAX_GROWTH_MIB} MiB, under ${MAX_EXTRA_FOR_LARGE_MIB} MiB more than a 64 MiB one`, async () => {
		const pid = sandbox.child.pid as number;
		// Warm up the route, the validator and the write path so their one-time allocations are in the baseline.
		await upload(8 * MiB);
		const baseline = residentBytes(pid);
		const peakDuring = async (size: number) => {
			let peak = residentBytes(pid);
			const sampler = setInterval(() => {
				peak = Math.max(peak, residentBytes(pid));
			}, 10);
			try {
				await upload(size);
			} finally {
				clearInterval(sampler);
			}
			return Math.max(peak, residentBytes(pid));
		};
		const peakSmall = await peakDuring(SMALL);
		const peakLarge = await peakDuring(LARGE);
		expect((peakLarge - baseline) / MiB).toBeLessThan(MAX_GROWTH_MIB);
		expect((peakLarge - peakSmall) / MiB).toBeLessThan(MAX_EXTRA_FOR_LARGE_MIB);
	});
});
