import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { PublicAccountResponse } from '../../../../src/api';
import type { TranscriptionServiceClient } from '../../../shared/transport';

const properties: INodeProperties[] = [];

export const description = updateDisplayOptions(
	{ show: { resource: ['account'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[]> {
	const response = await client.request<PublicAccountResponse>({
		operation: 'getAccount',
		itemIndex,
	});
	const account = response.body;
	const json: IDataObject = { ...account };
	if (!account.api_access) {
		json.notice =
			`API access is off for this account (plan "${account.effective_tier}"). ` +
			'Only premium and platinum plans may use the API; requests that need it will fail with plan_downgraded_api_revoked.';
	}
	return [{ json }];
}
