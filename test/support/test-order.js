// The order jest starts the test files of `npm test` in (jest.config.js, `testSequencer`). Jest's own order — the
// files that failed last time, then the longest by the timings it keeps in its cache, else the largest files — with two
// kinds of file moved to the front:
// - one that measures its own process's memory starts in a fresh worker: a worker that ran other files first has a
//   grown young generation, which delays the garbage collection of the upload's buffers past its bound;
// - the longest, so that from a fresh clone (no timings cached yet) none of them starts last and runs alone.
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = path.resolve(__dirname, '../..');

const FIRST = [
	'test/engine/action-large-upload.test.ts',
	'test/unit/polling-trigger-backlog.test.ts',
	'test/engine/polling-trigger-load.test.ts',
	'test/release/scan.test.ts',
];

class TestOrder extends Sequencer {
	sort(tests) {
		const rank = (test) => {
			const index = FIRST.indexOf(path.relative(ROOT, test.path).split(path.sep).join('/'));
			return index === -1 ? FIRST.length : index;
		};
		// Array.prototype.sort is stable: the rest keep jest's order.
		return [...super.sort(tests)].sort((left, right) => rank(left) - rank(right));
	}
}

module.exports = TestOrder;
