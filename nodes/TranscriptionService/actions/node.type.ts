import type { AllEntities } from 'n8n-workflow';

/** Every resource and its operations, by the values saved in workflows. */
type NodeMap = {
	account: 'get';
	transcription: 'create' | 'downloadArtifact' | 'get' | 'getAll' | 'transcribeAndDownload';
	upload: 'createSlot' | 'sendMedia';
	webhook: 'sendTestEvent';
};

export type TranscriptionServiceType = AllEntities<NodeMap>;

export type ResourceName = TranscriptionServiceType['resource'];

export type OperationName<R extends ResourceName> = Extract<
	TranscriptionServiceType,
	{ resource: R }
>['operation'];
