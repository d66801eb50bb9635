// `npm run demo`: the main job on the embedded default. Starts the sandbox, makes a few short recordings
// (one with a Hebrew name), runs the example "Transcribe and Download" node through n8n-core's engine,
// shows each step as the service sees it, writes every artifact to demo-output/ and prints a summary.
// Exit code 0 only if every artifact was produced.
import '../test/support/engine/setup-env';

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { INodeExecutionData } from 'n8n-workflow';

import { ARTIFACT_FORMATS } from '../src/artifacts';
import { SandboxAdmin } from '../sandbox/admin-client';
import { startSandbox } from '../sandbox/server';
import {
	binaryBytes,
	binaryItem,
	cleanupBinaryData,
	runWorkflow,
} from '../test/support/engine/harness';
import { makeWav } from '../test/support/fixtures/media';
import { EXAMPLES, findNode, loadExample } from '../test/support/n8n/workflows';

const REPO_ROOT = path.resolve(__dirname, '..');
const OUTPUT_DIR = path.join(REPO_ROOT, 'demo-output');
const SAMPLE_MEDIA = [
	{ fileName: 'team-standup.wav', seconds: 3 },
	{ fileName: 'customer-call.wav', seconds: 2 },
	{ fileName: 'ראיון-עבודה.wav', seconds: 2.5 },
	{ fileName: 'lecture-intro.wav', seconds: 4 },
];
const FORMATS = ARTIFACT_FORMATS;

const write = (line: string) => process.stdout.write(`${line}\n`);
const elapsed = (since: number) =>
	`${((performance.now() - since) / 1000).toFixed(1).padStart(5)} s`;

/**
 * Reports each request the sandbox answers (it runs in this process, so n8n's HTTP calls are seen as
 * they finish) and each job status change, under the name of the file it belongs to.
 */
class Progress {
	private readonly fileOfUpload = new Map<string, string>();
	private readonly fileOfJob = new Map<string, string>();
	private readonly jobStatus = new Map<string, string>();
	private readonly announcedSlots = new Set<string>();
	private queue = Promise.resolve();
	private polling: NodeJS.Timeout | undefined;

	constructor(
		private readonly admin: SandboxAdmin,
		private readonly started: number,
	) {}

	private readonly onResponse = (message: unknown) => {
		const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
		const url = request.url ?? '';
		if (url.startsWith('/_sandbox')) return;
		const method = request.method ?? '';
		const status = response.statusCode;
		const bytes = Number(request.headers['content-length'] ?? 0);
		this.queue = this.queue
			.then(() => this.describe(method, url, status, bytes))
			.catch(() => undefined);
	};

	start(): void {
		subscribe('http.server.response.finish', this.onResponse);
		this.polling = setInterval(() => {
			this.queue = this.queue.then(() => this.pollJobs()).catch(() => undefined);
		}, 200);
	}

	async stop(): Promise<void> {
		unsubscribe('http.server.response.finish', this.onResponse);
		clearInterval(this.polling);
		await this.queue;
	}

	private say(fileName: string, what: string): void {
		write(`${elapsed(this.started)}  ${fileName.padEnd(20)}  ${what}`);
	}

	private async learn(): Promise<void> {
		const records = await this.admin.records();
		for (const upload of records.uploads) this.fileOfUpload.set(upload.upload_id, upload.filename);
		for (const job of records.jobs)
			this.fileOfJob.set(job.job_id, this.fileOfUpload.get(job.upload_id) ?? job.upload_id);
	}

	private async fileFor(kind: 'upload' | 'job', id: string): Promise<string> {
		const known = kind === 'upload' ? this.fileOfUpload : this.fileOfJob;
		if (!known.has(id)) await this.learn();
		return known.get(id) ?? id;
	}

	private async describe(
		method: string,
		url: string,
		status: number,
		bytesIn: number,
	): Promise<void> {
		const pathname = new URL(url, 'http://sandbox').pathname;
		const upload = /\/uploads\/([^/]+)\/binary$/.exec(pathname);
		const artifact = /\/transcriptions\/([^/]+)\/artifact(?:\.(\w+))?$/.exec(pathname);
		if (method === 'POST' && pathname.endsWith('/uploads') && status === 201) {
			await this.learn();
			for (const [uploadId, fileName] of this.fileOfUpload) {
				if (this.announcedSlots.has(uploadId)) continue;
				this.announcedSlots.add(uploadId);
				this.say(fileName, `slot ${uploadId} reserved`);
			}
		} else if (method === 'PUT' && upload) {
			this.say(
				await this.fileFor('upload', upload[1]),
				`uploaded ${bytesIn.toLocaleString('en')} bytes → ${status}`,
			);
		} else if (method === 'GET' && artifact) {
			const format = artifact[2] ?? 'default';
			this.say(await this.fileFor('job', artifact[1]), `downloaded ${format} → ${status}`);
		} else if (status >= 400) {
			this.say('(service)', `${method} ${pathname} → ${status}`);
		}
	}

	private async pollJobs(): Promise<void> {
		const records = await this.admin.records();
		for (const upload of records.uploads) this.fileOfUpload.set(upload.upload_id, upload.filename);
		for (const job of records.jobs) {
			const fileName = this.fileOfUpload.get(job.upload_id) ?? job.upload_id;
			this.fileOfJob.set(job.job_id, fileName);
			if (this.jobStatus.get(job.job_id) !== job.status) {
				this.jobStatus.set(job.job_id, job.status);
				this.say(fileName, `job ${job.job_id} ${job.status}`);
			}
		}
	}
}

function pairedIndex(item: INodeExecutionData): number | undefined {
	const paired = item.pairedItem;
	return typeof paired === 'object' && !Array.isArray(paired) ? paired.item : undefined;
}

interface Row {
	file: string;
	job: string;
	status: string;
	language: string;
	artifacts: Record<string, number | undefined>;
}

function printSummary(rows: Row[]): void {
	const header = [
		'file',
		'job',
		'status',
		'language',
		...FORMATS.map((format) => `${format} bytes`),
	];
	const lines = rows.map((row) => [
		row.file,
		row.job,
		row.status,
		row.language,
		...FORMATS.map((format) =>
			row.artifacts[format] === undefined ? 'MISSING' : String(row.artifacts[format]),
		),
	]);
	const widths = header.map((title, column) =>
		Math.max(title.length, ...lines.map((line) => line[column].length)),
	);
	const format = (cells: string[]) =>
		cells
			.map((cell, column) => cell.padEnd(widths[column]))
			.join('  ')
			.trimEnd();
	write('');
	write(format(header));
	write(widths.map((width) => '─'.repeat(width)).join('  '));
	for (const line of lines) write(format(line));
	write('');
}

async function main(): Promise<number> {
	const started = performance.now();
	await rm(OUTPUT_DIR, { recursive: true, force: true });
	await mkdir(OUTPUT_DIR, { recursive: true });

	const sandbox = await startSandbox({ port: 0, quiet: true, jobSeconds: 3 });
	const progress = new Progress(new SandboxAdmin(sandbox.baseUrl), started);
	try {
		write(
			`Transcription Service demo — sandbox at ${sandbox.baseUrl}, output in ${path.relative(process.cwd(), OUTPUT_DIR)}/`,
		);
		const example = loadExample(EXAMPLES.form);
		const node = findNode(example, 'Transcribe and Download');
		const binaryProperty = String(node.parameters.binaryPropertyName);
		const items = await Promise.all(
			SAMPLE_MEDIA.map(({ fileName, seconds }) =>
				binaryItem({
					data: makeWav({ seconds }),
					fileName,
					mimeType: 'audio/wav',
					property: binaryProperty,
				}),
			),
		);
		write(
			`Generated ${items.length} recordings; running "${node.name}" from examples/${EXAMPLES.form}\n`,
		);

		progress.start();
		const run = await runWorkflow({
			nodes: [
				{
					name: node.name,
					type: node.type,
					typeVersion: node.typeVersion,
					parameters: {
						...node.parameters,
						options: { ...(node.parameters.options as object), concurrency: 4 },
					},
				},
			],
			input: items,
			credentials: {
				apiKey: sandbox.keys.platinum_live.key,
				signingSecret: sandbox.keys.platinum_live.signing_secret,
				baseUrl: sandbox.baseUrl,
			},
		});
		await progress.stop();
		if (run.error) write(`\nThe workflow failed: ${run.error.message}`);

		const rows: Row[] = [];
		const outputs = run.error ? [] : run.output(node.name);
		for (const [index, { fileName }] of SAMPLE_MEDIA.entries()) {
			const output = outputs.find((item) => pairedIndex(item) === index);
			const json = output?.json ?? {};
			const analysis = (json.analysis ?? {}) as {
				language?: string | null;
				dialect?: string | null;
			};
			const row: Row = {
				file: fileName,
				job: String(json.job_id ?? '—'),
				status: String(json.status ?? (json.error ? 'error' : '—')),
				language: [analysis.language, analysis.dialect].filter(Boolean).join('/') || '—',
				artifacts: {},
			};
			for (const format of FORMATS) {
				const binary = output?.binary?.[format];
				if (!binary) continue;
				const bytes = await binaryBytes(binary);
				if (bytes.length === 0) continue;
				await writeFile(
					path.join(OUTPUT_DIR, binary.fileName ?? `${path.parse(fileName).name}.${format}`),
					bytes,
				);
				row.artifacts[format] = bytes.length;
			}
			rows.push(row);
		}
		printSummary(rows);

		const expected = SAMPLE_MEDIA.length * FORMATS.length;
		const produced = rows.reduce((count, row) => count + Object.keys(row.artifacts).length, 0);
		const outputFolder = path.relative(process.cwd(), OUTPUT_DIR);
		write(
			`${produced}/${expected} artifacts written to ${outputFolder}/ in ${elapsed(started).trim()}`,
		);
		if (produced !== expected) return 1;
		write(`\nNext: open ${outputFolder}/ (an SRT, TXT, PDF and DOCX per recording),`);
		write(
			'  or run `npm run dev` to see it in the n8n editor (its first run installs n8n: ~5 min).',
		);
		return 0;
	} finally {
		await progress.stop();
		await sandbox.close();
		await cleanupBinaryData();
		const userFolder = process.env.N8N_USER_FOLDER;
		if (userFolder?.startsWith(path.join(tmpdir(), 'tss-n8n-user-')))
			await rm(userFolder, { recursive: true, force: true });
	}
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		process.stderr.write(
			`demo: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
		);
		process.exit(1);
	},
);
