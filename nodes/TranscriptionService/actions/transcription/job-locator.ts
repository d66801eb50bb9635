// The Job field of Get and Download Artifact, a resource locator (from the list, by ID or by a status or artifact
// link), and reading the job_id it names.
import type { IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';

import { operationError } from '../../../shared/errors';
import { requireId } from '../../helpers/ids';

/** A job id in a link: not "." or "..", no separator, query or whitespace (still percent-encoded). */
const LINK_JOB_ID = String.raw`(?!\.\.?(?:[/?#]|$))([^/?#\s]+)`;
/** The end of a job's status link or artifact link (`…/artifact`, `…/artifact.pdf`), with an optional query. */
const JOB_LINK_TAIL = String.raw`/transcriptions/${LINK_JOB_ID}(?:/artifact(?:\.[A-Za-z0-9]+)?)?/?(?:[?#]\S*)?`;

/**
 * Finds the job_id in a job's status or artifact link, relative (`/api/v1/transcriptions/{job_id}`, as API responses
 * give them) or absolute (as webhook bodies give them), under any path prefix. Exactly one group, as n8n's
 * `extractValue` wants.
 */
export const JOB_LINK_PATTERN = String.raw`${JOB_LINK_TAIL}\s*$`;

/** What the editor accepts in By URL (n8n anchors it at both ends; expressions are not checked). */
const JOB_LINK_VALIDATION = String.raw`\s*(?:https?://[^/?#\s]+)?(?:/[^?#\s]*)?${JOB_LINK_TAIL}\s*`;

/** The job as a resource locator: from the account's jobs, by ID, or by its status or artifact link. */
export const jobProperty: INodeProperties = {
	displayName: 'Job',
	name: 'jobId',
	type: 'resourceLocator',
	required: true,
	default: { mode: 'list', value: '' },
	description:
		"The transcription job. From List shows the account's jobs 100 at a time in the service's order, each batch newest first; a search matches created time, status, duration, language and job ID within 500 jobs at a time (the service has no search of its own). To use the input item's job, drag its job_id here.",
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a job...',
			typeOptions: {
				searchListMethod: 'searchJobs',
				searchable: true,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. job_8f14e45fceea167a5a36dedd',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: String.raw`(?!\.\.?$)[^/\\\s]+`,
						errorMessage: 'Not a job ID: no slashes or spaces (for a link, choose By URL)',
					},
				},
			],
		},
		{
			displayName: 'By URL',
			name: 'url',
			type: 'string',
			placeholder: 'e.g. https://api.example.com/api/v1/transcriptions/job_8f14e45f/artifact',
			extractValue: { type: 'regex', regex: JOB_LINK_PATTERN },
			validation: [
				{
					type: 'regex',
					properties: {
						regex: JOB_LINK_VALIDATION,
						errorMessage:
							"Not a job link: use the job's links.self (…/transcriptions/{job_id}) or links.artifact (…/artifact, …/artifact.pdf)",
					},
				},
			],
		},
	],
};

interface LocatorValue {
	mode: string;
	value: unknown;
}

function isLocatorValue(value: unknown): value is LocatorValue {
	return typeof value === 'object' && value !== null && 'mode' in value && 'value' in value;
}

/**
 * The job_id the Job field names, checked like every id before a request: a resource locator value (from the list,
 * by ID, or by link: the id is taken from the link's path only, the link itself is never requested), or a plain
 * string, as a hand-written or generated workflow may hold.
 */
export function jobIdParameter(context: IExecuteFunctions, itemIndex: number): string {
	const node = context.getNode();
	const value: unknown = context.getNodeParameter('jobId', itemIndex, '');
	if (!isLocatorValue(value)) return requireId(node, value, 'Job', itemIndex);
	const id = value.mode === 'url' ? jobIdFromLink(node, value.value, itemIndex) : value.value;
	return requireId(node, id, 'Job', itemIndex);
}

/** The job_id of a status or artifact link, percent-decoded; anything else is an item error naming the field. */
export function jobIdFromLink(node: INode, link: unknown, itemIndex?: number): string {
	const text = typeof link === 'string' ? link.trim() : '';
	const match = new RegExp(JOB_LINK_PATTERN).exec(text);
	let id: string | undefined;
	if (match) {
		try {
			id = decodeURIComponent(match[1]);
		} catch {
			id = undefined;
		}
	}
	if (id !== undefined) return id;
	const shown = text.length > 120 ? `${text.slice(0, 120)}…` : text;
	throw operationError(node, {
		code: 'invalid_id',
		message: `The parameter "Job" (By URL) is not a job link: ${
			match ? 'its job_id is not valid percent-encoding' : 'no /transcriptions/{job_id} path in it'
		}`,
		description: `Got ${JSON.stringify(shown)}. Use the job's status link (links.self, e.g. /api/v1/transcriptions/job_123) or its artifact link (links.artifact, e.g. …/transcriptions/job_123/artifact.pdf), relative or absolute.`,
		itemIndex,
	});
}
