import { resourceDescription } from '../resource';
import type { ResourceOperations } from '../types';
import * as create from './create.operation';
import * as downloadArtifact from './downloadArtifact.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as transcribeAndDownload from './transcribeAndDownload/transcribeAndDownload.operation';

export const operations: ResourceOperations<'transcription'> = {
	create: {
		module: create,
		option: {
			name: 'Create',
			description: 'Start a transcription job for uploaded media',
			action: 'Create a transcription job',
		},
	},
	downloadArtifact: {
		module: downloadArtifact,
		option: {
			name: 'Download Artifact',
			description: 'Download the transcript of a completed job as SRT, TXT, PDF or DOCX',
			action: 'Download a transcript',
		},
	},
	get: {
		module: get,
		option: {
			name: 'Get',
			description: 'Get the status and details of a job',
			action: 'Get a transcription job',
		},
	},
	getAll: {
		module: getAll,
		option: {
			name: 'Get Many',
			description: 'List the jobs created through the API',
			action: 'Get many transcription jobs',
		},
	},
	transcribeAndDownload: {
		module: transcribeAndDownload,
		option: {
			name: 'Transcribe and Download',
			description:
				'Upload a recording (a binary file or a URL), wait for its transcript and download it in one step',
			// As an AI agent's tool, n8n describes the tool with this action ("… in Transcription Service").
			action: 'Transcribe a recording from a URL or a file and get its transcript',
		},
	},
};

export const description = resourceDescription(
	'transcription',
	operations,
	'transcribeAndDownload',
);
