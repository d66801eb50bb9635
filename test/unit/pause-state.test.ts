// The decisions of a paused Transcribe and Download (nodes/TranscriptionService/actions/transcription/transcribeAndDownload/ledger.ts), without I/O.
import {
	decideAfterCheck,
	decideOnEvent,
	forgetLedger,
	ledgerOf,
	pausedItem,
	pendingJobs,
	PAUSE_KEY,
	readPause,
	type PauseRecord,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/ledger';

const NODE = 'node-1';
const record = (item: number, jobId?: string, status = 'queued'): PauseRecord => ({
	node_id: NODE,
	item,
	formats: ['srt'],
	...(jobId ? { job_id: jobId, upload_id: `upl_${item}`, status } : {}),
});
const FOREVER = Date.now() + 60 * 60 * 1000;
let executions = 0;
const freshLedger = (owned: boolean) => ledgerOf(`execution-${++executions}`, FOREVER, owned);

describe('the stored items', () => {
	it('are the error items n8n hands on if the wait runs out, each carrying its record', () => {
		const item = pausedItem(record(2, 'job_c'), {
			code: 'max_wait_exceeded',
			message:
				'Transcription job job_c did not finish within the Max Wait of 60 s (status "queued")',
			job_id: 'job_c',
		});
		expect(item).toEqual({
			json: {
				error: expect.objectContaining({ code: 'max_wait_exceeded', job_id: 'job_c' }),
				[PAUSE_KEY]: record(2, 'job_c'),
			},
			pairedItem: { item: 2 },
		});
	});

	it('are read back only when every item is a record of this node', () => {
		const items = [record(0, 'job_a'), record(1)].map((entry) =>
			pausedItem(entry, { code: 'x', message: 'y' }),
		);
		expect(readPause(items, NODE)).toEqual([record(0, 'job_a'), record(1)]);
		expect(readPause(items, 'another-node')).toBeUndefined();
		expect(readPause([...items, { json: {} }], NODE)).toBeUndefined();
		expect(readPause([], NODE)).toBeUndefined();
		expect(readPause('junk', NODE)).toBeUndefined();
		const badFormat = pausedItem(
			{ ...record(0, 'job_a'), formats: ['exe' as never] },
			{ code: 'x', message: 'y' },
		);
		expect(readPause([badFormat], NODE)).toBeUndefined();
	});
});

describe('decideOnEvent, in the process that paused (it hears every event)', () => {
	const records = [record(0, 'job_a'), record(1, 'job_b'), record(2, 'job_c')];

	it('waits, without asking anything, until the last job has ended; then resumes once', () => {
		const ledger = freshLedger(true);
		expect(decideOnEvent(records, ledger, 'job_b', 'completed')).toEqual({
			action: 'wait',
			pending: ['job_a', 'job_c'],
		});
		expect(decideOnEvent(records, ledger, 'job_a', 'failed')).toEqual({
			action: 'wait',
			pending: ['job_c'],
		});
		expect(decideOnEvent(records, ledger, 'job_c', 'completed')).toEqual({ action: 'resume' });
		expect(ledger.resuming).toBe(true);
	});

	it('a repeated event changes nothing, and after the resume every event is only acknowledged', () => {
		const ledger = freshLedger(true);
		expect(decideOnEvent(records, ledger, 'job_a', 'completed').action).toBe('wait');
		expect(decideOnEvent(records, ledger, 'job_a', 'completed')).toEqual({
			action: 'wait',
			pending: ['job_b', 'job_c'],
		});
		decideOnEvent(records, ledger, 'job_b', 'completed');
		expect(decideOnEvent(records, ledger, 'job_c', 'completed').action).toBe('resume');
		expect(decideOnEvent(records, ledger, 'job_c', 'completed')).toEqual({ action: 'acknowledge' });
		expect(decideOnEvent(records, ledger, 'job_a', 'completed')).toEqual({ action: 'acknowledge' });
	});

	it('refuses an event for a job it did not start, and remembers nothing of it', () => {
		const ledger = freshLedger(true);
		expect(decideOnEvent(records, ledger, 'job_elsewhere', 'completed')).toEqual({
			action: 'refuse',
		});
		expect(ledger.terminal.size).toBe(0);
	});

	it('counts jobs that ended before the pause (test keys, the pre-pause check) and items that failed before it', () => {
		const mixed = [record(0, 'job_a', 'completed'), record(1), record(2, 'job_c', 'processing')];
		const ledger = freshLedger(true);
		expect(pendingJobs(mixed, ledger)).toEqual(['job_c']);
		expect(decideOnEvent(mixed, ledger, 'job_c', 'failed')).toEqual({ action: 'resume' });
	});
});

describe('decideOnEvent, in another process (a restart, a queue-mode webhook processor)', () => {
	const records = [record(0, 'job_a'), record(1, 'job_b')];

	it('asks about the jobs it has heard nothing of, and resumes when the answers show all ended', () => {
		const ledger = freshLedger(false);
		expect(decideOnEvent(records, ledger, 'job_a', 'completed')).toEqual({
			action: 'check',
			pending: ['job_b'],
		});
		expect(decideAfterCheck(records, ledger)).toEqual({ action: 'wait', pending: ['job_b'] });
		ledger.terminal.set('job_b', 'completed');
		expect(decideAfterCheck(records, ledger)).toEqual({ action: 'resume' });
		expect(decideAfterCheck(records, ledger)).toEqual({ action: 'acknowledge' });
	});

	it('a single-item pause resumes on its event with no question', () => {
		expect(decideOnEvent([record(0, 'job_a')], freshLedger(false), 'job_a', 'completed')).toEqual({
			action: 'resume',
		});
	});
});

describe('the ledger of a paused execution', () => {
	it('is one per execution in this process, kept owned if the pauser made it, and forgotten on request', () => {
		const first = ledgerOf('execution-ledger', FOREVER, true);
		expect(ledgerOf('execution-ledger', FOREVER)).toBe(first);
		expect(first.owned).toBe(true);
		forgetLedger('execution-ledger');
		expect(ledgerOf('execution-ledger', FOREVER).owned).toBe(false);
	});

	it('is dropped once its time has passed', () => {
		const stale = ledgerOf('execution-stale', Date.now() - 1, true);
		stale.terminal.set('job_a', 'completed');
		ledgerOf('execution-other', FOREVER);
		expect(ledgerOf('execution-stale', FOREVER).terminal.size).toBe(0);
	});
});
