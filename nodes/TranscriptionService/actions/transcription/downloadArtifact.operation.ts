import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { cleanFileName, type ArtifactChoice } from '../../../../src/artifacts';
import { artifactBinary, fetchTranscript, isTextFormat } from '../../../shared/artifact';
import type { TranscriptionServiceClient } from '../../../shared/transport';
import { downloadFormatOptions } from '../../../shared/vocabulary';
import { jobIdParameter, jobProperty } from './job-locator';

const properties: INodeProperties[] = [
	jobProperty,
	{
		displayName: 'Format',
		name: 'format',
		type: 'options',
		options: [
			...downloadFormatOptions,
			{
				name: 'Job Default',
				value: 'job_default',
				description: 'The output format chosen when the job was created',
			},
		].sort((left, right) => left.name.localeCompare(right.name)),
		default: 'job_default',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the output binary field to put the file in',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'File Name',
				name: 'fileName',
				type: 'string',
				default: '',
				placeholder: 'e.g. interview.srt',
				description:
					"Name for the output file instead of the one the service gives (the uploaded file's name with the format's extension)",
			},
			{
				displayName: 'Include Text',
				name: 'includeText',
				type: 'boolean',
				default: false,
				description:
					'Whether to also put the transcript on the item\'s JSON as "text" (SRT, TXT and WebVTT only)',
			},
			{
				displayName: 'Include Cues',
				name: 'includeCues',
				type: 'boolean',
				default: false,
				description:
					'Whether to also put the timed cues on the item\'s JSON as "cues": a list of {start, end, text}, times in seconds, read from the SRT (one more download when the file is not SRT or WebVTT)',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['transcription'], operation: ['downloadArtifact'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[]> {
	const jobId = jobIdParameter(this, itemIndex);
	const choice = this.getNodeParameter('format', itemIndex) as ArtifactChoice;
	const propertyName = String(this.getNodeParameter('binaryPropertyName', itemIndex)).trim();
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	if (propertyName === '') {
		throw new NodeOperationError(this.getNode(), '"Put Output File in Field" is empty', {
			itemIndex,
			description: 'Name the binary field that should hold the downloaded file, e.g. "data".',
		});
	}

	const {
		files: [artifact],
		cues,
	} = await fetchTranscript(
		this,
		client,
		jobId,
		{ choices: [choice], cues: options.includeCues === true },
		itemIndex,
	);
	if (typeof options.fileName === 'string' && options.fileName.trim() !== '') {
		artifact.fileName = cleanFileName(options.fileName) || artifact.fileName;
	}
	const json: IDataObject = {
		job_id: jobId,
		format: artifact.format ?? null,
		file_name: artifact.fileName,
		mime_type: artifact.mimeType,
		size_bytes: artifact.bytes.length,
	};
	if (options.includeText === true && isTextFormat(artifact.format))
		json.text = artifact.bytes.toString('utf8');
	if (cues) json.cues = cues;
	return [{ json, binary: { [propertyName]: await artifactBinary(this, artifact) } }];
}
