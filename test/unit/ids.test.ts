import { idProblem, MAX_ID_LENGTH } from '../../src/api';

// Every id travels as one path segment (spec 4.3, 4.6, 4.7): what would change the path is not an id.
describe('idProblem: what cannot be an id of the API', () => {
	it.each(['job_123', 'upl_9f2c', 'a.b', '...', 'job%2e%2e', 'ג׳וב-1', 'x'.repeat(MAX_ID_LENGTH)])(
		'accepts %j',
		(id) => {
			expect(idProblem(id)).toBeUndefined();
		},
	);

	it.each([
		['', 'it is empty'],
		['.', '"." is a path segment, not an id'],
		['..', '".." is a path segment, not an id'],
		['../account', 'it contains a path separator ("/" or "\\")'],
		['a/b', 'it contains a path separator ("/" or "\\")'],
		['a\\b', 'it contains a path separator ("/" or "\\")'],
		['job\u0000', 'it contains whitespace or a control character'],
		['job\r\nX-Injected: 1', 'it contains whitespace or a control character'],
		['job 1', 'it contains whitespace or a control character'],
		['job\u0085', 'it contains whitespace or a control character'],
		[
			'x'.repeat(MAX_ID_LENGTH + 1),
			`it is ${MAX_ID_LENGTH + 1} characters long; ids are at most ${MAX_ID_LENGTH}`,
		],
	])('refuses %j: %s', (id, problem) => {
		expect(idProblem(id)).toBe(problem);
	});
});
