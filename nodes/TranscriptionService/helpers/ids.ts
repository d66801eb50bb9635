import type { INode } from 'n8n-workflow';

import { idProblem } from '../../../src/api';
import { operationError } from '../../shared/errors';

/**
 * A job or upload id from a parameter (usually `{{ $json.job_id }}` of an upstream item), trimmed, or an item error
 * naming the parameter: a "..", a slash or an empty value would change which URL the request goes to.
 */
export function requireId(
	node: INode,
	value: unknown,
	parameter: string,
	itemIndex?: number,
): string {
	const id = typeof value === 'string' ? value.trim() : String(value ?? '').trim();
	const problem = idProblem(id);
	if (problem === undefined) return id;
	throw operationError(node, {
		code: 'invalid_id',
		message: `The parameter "${parameter}" is not a valid id: ${problem}`,
		description: `Got ${JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id)}. Use the id the service returned (e.g. job_id or upload_id of a previous step).`,
		itemIndex,
	});
}
