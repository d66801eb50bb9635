// R4's scanner must itself be able to fail: R1–R3 each end with a scan that expects 0 findings, which proves
// nothing unless a planted secret, in each form a leak takes, is found.

import { NodeApiError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

import { Evidence, scanForSecrets, secretForms } from '../support/reliability/evidence';

const API_KEY = 'svc_sk_live_plantedKey0000000000000042';
const SIGNING_SECRET = 'whsec_planted_5f2b8c0e4d7a41c9';
const NODE: INode = {
	id: 'n',
	name: 'Transcription Service',
	type: 'test',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

test('R4: every form of a planted secret is found, wherever it sits', () => {
	for (const { form, text } of secretForms(API_KEY)) {
		const evidence = new Evidence();
		evidence.addItems('output', [
			{ json: { ok: true, nested: { deeper: [`prefix ${text} suffix`] } } },
		]);
		const findings = scanForSecrets(evidence, { 'API key': API_KEY });
		expect({ form, found: findings.some((finding) => finding.form === form) }).toEqual({
			form,
			found: true,
		});
	}
});

test('R4: a secret in an error description, context or cause is found', () => {
	const evidence = new Evidence();
	const cause = new Error(`upstream said Authorization: Bearer ${API_KEY}`);
	const error = new NodeApiError(
		NODE,
		{ message: 'failed' },
		{ description: `signed with ${SIGNING_SECRET}` },
	);
	Object.assign(error, { cause });
	evidence.addError('error', error);
	const findings = scanForSecrets(evidence, {
		'API key': API_KEY,
		'signing secret': SIGNING_SECRET,
	});
	expect(new Set(findings.map((finding) => finding.secretLabel))).toEqual(
		new Set(['API key', 'signing secret']),
	);
});

test('R4: clean evidence gives no finding', () => {
	const evidence = new Evidence();
	evidence.addItems('output', [{ json: { job_id: 'job_1', key_hint: 'svc_sk_live_…0042' } }]);
	expect(scanForSecrets(evidence, { 'API key': API_KEY })).toEqual([]);
});
