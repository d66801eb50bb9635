// What a paused Transcribe and Download stores in n8n (pause-record.ts): each item's record, nested in the item n8n hands
// on if it ends the wait itself, and read back only when it is this node's.
import {
	readPause,
	storedError,
	storedItem,
	type PauseRecord,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/pause-record';
import { NODE, record } from '../support/fixtures/pause-records';

describe('the stored items', () => {
	const timeout = { code: 'max_wait_exceeded', message: 'Max Wait ran out', job_id: 'job_c' };

	it("are an error alone (n8n's error-output rule), the record nested inside it", () => {
		const item = storedItem(record(2, 'job_c'), timeout);
		expect(item).toEqual({
			json: { error: { ...timeout, pause: record(2, 'job_c') } },
			pairedItem: { item: 2 },
		});
		expect(Object.keys(item.json)).toEqual(['error']);
		expect(storedError(item)).toEqual(timeout);
	});

	it('are read back only when every item is a record of this node', () => {
		const items = [record(0, 'job_a'), record(1)].map((entry) =>
			storedItem(entry, { code: 'x', message: 'y' }),
		);
		expect(readPause(items, NODE)).toEqual([record(0, 'job_a'), record(1)]);
		expect(readPause(items, 'another-node')).toBeUndefined();
		expect(readPause([...items, { json: {} }], NODE)).toBeUndefined();
		expect(readPause([], NODE)).toBeUndefined();
		expect(readPause('junk', NODE)).toBeUndefined();
		const broken = (change: Partial<PauseRecord>) =>
			readPause([storedItem({ ...record(0, 'job_a'), ...change }, timeout)], NODE);
		expect(broken({ formats: ['exe' as never] })).toBeUndefined();
		expect(broken({ deadline_at: 'soon' })).toBeUndefined();
		expect(broken({ paused_at: undefined as never })).toBeUndefined();
		expect(broken({ check_key: 'not hex' })).toBeUndefined();
		expect(broken({ resume_url: undefined as never })).toBeUndefined();
	});
});
