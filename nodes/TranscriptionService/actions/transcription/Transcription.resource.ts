import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../types';
import * as create from './create.operation';
import * as downloadArtifact from './downloadArtifact.operation';
import * as get from './get.operation';
import * as getAll from './getMany.operation';
import * as transcribeAndDownload from './transcribeAndDownload.operation';

export const operations: Record<string, OperationModule> = {
	create,
	downloadArtifact,
	get,
	getAll,
	transcribeAndDownload,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['transcription'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Start a transcription job for uploaded media',
				action: 'Create a transcription job',
			},
			{
				name: 'Download Artifact',
				value: 'downloadArtifact',
				description: 'Download the transcript of a completed job as SRT, TXT, PDF or DOCX',
				action: 'Download a transcript',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get the status and details of a job',
				action: 'Get a transcription job',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the jobs created through the API',
				action: 'Get many transcription jobs',
			},
			{
				name: 'Transcribe and Download',
				value: 'transcribeAndDownload',
				description: 'Upload a binary file, wait for its transcript and download it in one step',
				action: 'Transcribe a file and download the transcript',
			},
		],
		default: 'transcribeAndDownload',
	},
	...transcribeAndDownload.description,
	...create.description,
	...get.description,
	...getAll.description,
	...downloadArtifact.description,
];
