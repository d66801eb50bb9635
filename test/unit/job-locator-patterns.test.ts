// The Job field's pure parts: the link patterns the editor and the node share, the label the job list shows, and
// the list search's matching. Their use in n8n runs in test/engine/job-locator.test.ts and job-list-search.test.ts.
import type {
	INode,
	INodeProperties,
	INodePropertyMode,
	INodePropertyRegexValidation,
} from 'n8n-workflow';

import type { PublicTranscriptionResponse } from '../../src/api';
import {
	JOB_LINK_PATTERN,
	jobIdFromLink,
} from '../../nodes/TranscriptionService/actions/transcription/job-locator';
import {
	jobLabel,
	matchesSearch,
	searchTerms,
} from '../../nodes/TranscriptionService/methods/listSearch';
import { TranscriptionService } from '../../nodes/TranscriptionService/TranscriptionService.node';

const node: INode = {
	id: 'node-1',
	name: 'Transcription Service',
	type: 'transcriptionService',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

const locator = new TranscriptionService().description.properties.find(
	(property) => property.type === 'resourceLocator',
) as INodeProperties;
const mode = (name: string) =>
	locator.modes?.find((each) => each.name === name) as INodePropertyMode;
/** The editor's check of a typed value: n8n anchors the mode's validation regex at both ends. */
const editorAccepts = (modeName: string, value: string) =>
	(mode(modeName).validation ?? []).every((validation) => {
		const { regex } = (validation as INodePropertyRegexValidation).properties;
		return new RegExp(`^${regex}$`).test(value);
	});

function job(fields: Partial<PublicTranscriptionResponse> = {}): PublicTranscriptionResponse {
	return {
		job_id: 'job_0123456789abcdef01234567',
		status: 'completed',
		created_at: '2026-11-23T14:02:59.731Z',
		updated_at: '2026-11-23T14:03:30.000Z',
		media_duration_seconds: 125,
		credits_used: 3,
		analysis: { language: 'he', dialect: 'he-IL' },
		links: {
			self: '/api/v1/transcriptions/job_0123456789abcdef01234567',
			artifact: '/api/v1/transcriptions/job_0123456789abcdef01234567/artifact',
		},
		...fields,
	};
}

describe('Job → By URL: the job_id of a status or artifact link', () => {
	it.each([
		['/api/v1/transcriptions/job_1', 'job_1'],
		['/api/v1/transcriptions/job_1/', 'job_1'],
		['https://transcribe.example.com/api/v1/transcriptions/job_1', 'job_1'],
		['/api/v1/transcriptions/job_1/artifact', 'job_1'],
		['https://transcribe.example.com/api/v1/transcriptions/job_1/artifact.docx', 'job_1'],
		['/api/v1/transcriptions/job_1/artifact?format=pdf', 'job_1'],
		['/api/v1/transcriptions/job_1#top', 'job_1'],
		['  https://transcribe.example.com/api/v1/transcriptions/job_1  ', 'job_1'],
		['/svc/v2/transcriptions/job_1/artifact.srt', 'job_1'],
		// A prefix may itself hold "transcriptions": the job is the last such segment.
		['https://h.example/transcriptions/api/transcriptions/job_1', 'job_1'],
		['http://127.0.0.1:4010/api/v1/transcriptions/job_%C3%A9', 'job_é'],
		['/api/v1/transcriptions/%2e%2e', '..'],
	])('%j names %j (what n8n extracts, percent-decoded)', (link, id) => {
		expect(jobIdFromLink(node, link)).toBe(id);
		expect(decodeURIComponent(new RegExp(JOB_LINK_PATTERN).exec(link)?.[1] ?? '')).toBe(id);
		expect(mode('url').extractValue).toEqual({ type: 'regex', regex: JOB_LINK_PATTERN });
	});

	it.each([
		'/api/v1/transcriptions/../account',
		'/api/v1/transcriptions/..',
		'/api/v1/transcriptions/.',
		'/api/v1/transcriptions/job_1/../../account',
		'/api/v1/transcriptions/job_1/artifact/../../account',
		'/api/v1/transcriptions',
		'/api/v1/transcriptions/',
		'/api/v1/uploads/upl_1/binary',
		'/api/v1/transcriptions/job 1',
		'job_1',
		'',
	])('%j is no job link, for the editor and for the node', (link) => {
		expect(editorAccepts('url', link)).toBe(false);
		expect(() => jobIdFromLink(node, link, 3)).toThrow(
			'The parameter "Job" (By URL) is not a job link: no /transcriptions/{job_id} path in it',
		);
	});

	it('refuses a job_id that is not valid percent-encoding, and what is not text', () => {
		expect(() => jobIdFromLink(node, '/api/v1/transcriptions/job_%E0%A4%A')).toThrow(
			'its job_id is not valid percent-encoding',
		);
		expect(() => jobIdFromLink(node, 42)).toThrow('no /transcriptions/{job_id} path in it');
	});

	it('says what it got (shortened) and which links work', () => {
		const long = `https://example.com/${'x'.repeat(200)}`;
		let description = '';
		try {
			jobIdFromLink(node, long);
		} catch (error) {
			description = String((error as { description?: string }).description);
		}
		expect(description).toBe(
			`Got ${JSON.stringify(`${long.slice(0, 120)}…`)}. Use the job's status link (links.self, e.g. /api/v1/transcriptions/job_123) or its artifact link (links.artifact, e.g. …/transcriptions/job_123/artifact.pdf), relative or absolute.`,
		);
	});

	it('the editor accepts every link the node reads', () => {
		for (const link of [
			'/api/v1/transcriptions/job_1',
			'https://transcribe.example.com/api/v1/transcriptions/job_1/artifact.pdf?x=1',
			' /api/v1/transcriptions/job_1 ',
			'http://127.0.0.1:4010/svc/v2/transcriptions/job_%C3%A9/artifact',
		])
			expect(editorAccepts('url', link)).toBe(true);
	});
});

describe('Job → By ID: what the editor accepts', () => {
	it.each(['job_1', 'job_0123456789abcdef01234567', '...', 'ג׳וב-1'])('accepts %j', (id) => {
		expect(editorAccepts('id', id)).toBe(true);
	});

	it.each([
		'',
		'.',
		'..',
		'../account',
		'job/1',
		'job\\1',
		'job 1',
		'/api/v1/transcriptions/job_1',
	])('marks %j', (id) => {
		expect(editorAccepts('id', id)).toBe(false);
	});
});

describe('Job → From List: the label of a job', () => {
	it('created time (UTC, to the minute), status, duration, language, job_id', () => {
		expect(jobLabel(job())).toBe(
			'2026-11-23 14:02 UTC · completed · 2 min 5 s · Hebrew · job_0123456789abcdef01234567',
		);
	});

	it.each([
		[0.4, '0 s'],
		[59.6, '1 min 0 s'],
		[3599, '59 min 59 s'],
		[3600, '1 h 0 min'],
		[7322, '2 h 2 min'],
	])('a duration of %d s reads %j', (seconds, text) => {
		expect(jobLabel(job({ media_duration_seconds: seconds }))).toContain(` · ${text} · `);
	});

	it('leaves out what the job does not say yet', () => {
		expect(
			jobLabel(
				job({
					status: 'queued',
					media_duration_seconds: null,
					analysis: { language: null, dialect: null },
				}),
			),
		).toBe('2026-11-23 14:02 UTC · queued · job_0123456789abcdef01234567');
	});

	it('shows a language code it has no name for, and a creation time it cannot read, as given', () => {
		expect(
			jobLabel(
				job({ created_at: 'yesterday', analysis: { language: 'not a code!', dialect: null } }),
			),
		).toBe('yesterday · completed · 2 min 5 s · not a code! · job_0123456789abcdef01234567');
		expect(jobLabel(job({ analysis: { language: 'en', dialect: 'en-US' } }))).toContain(
			' · English · ',
		);
	});
});

describe('Job → From List: search', () => {
	it('splits the filter into lower-case words', () => {
		expect(searchTerms('  Completed   HEBREW ')).toEqual(['completed', 'hebrew']);
		expect(searchTerms('')).toEqual([]);
		expect(searchTerms(undefined)).toEqual([]);
	});

	it.each([
		['', true],
		['job_0123', true],
		['ABCDEF01234567', true],
		['completed', true],
		['hebrew', true],
		['he-il', true],
		['2026-11-23 14:02', true],
		['2026-11-23t14:02:59', true],
		['completed hebrew', true],
		['failed', false],
		['completed english', false],
	])('%j matches: %s', (filter, matches) => {
		expect(matchesSearch(job(), searchTerms(filter))).toBe(matches);
	});
});
