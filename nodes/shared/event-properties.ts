// What both triggers ask: which events start the workflow, and whether to attach the transcript; and the one reader of
// the triggers' fields, which takes every default from the field that declares it.
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { DownloadFormat } from '../../src/artifacts';
import type { EventArtifact } from './event-item';
import { downloadFormatOptions, triggerEventOptions } from './vocabulary';

export const eventsProperty: INodeProperties = {
	displayName: 'Events',
	name: 'events',
	type: 'multiOptions',
	required: true,
	default: ['transcription.completed', 'transcription.failed'],
	description: 'Events that start the workflow; other events are acknowledged and ignored',
	options: triggerEventOptions,
};

export const artifactProperties: INodeProperties[] = [
	{
		displayName: 'Download Artifact',
		name: 'downloadArtifact',
		type: 'boolean',
		default: false,
		description:
			"Whether to download the transcript of each completed job with the credential's API key and attach it as a file. If the download fails, the event still starts the workflow, with an artifact_error field.",
	},
	{
		displayName: 'Artifact Format',
		name: 'artifactFormat',
		type: 'options',
		default: 'srt',
		displayOptions: { show: { downloadArtifact: [true] } },
		options: downloadFormatOptions,
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show: { downloadArtifact: [true] } },
		hint: 'The name of the output binary field to put the transcript in',
	},
	{
		displayName: 'Include Cues',
		name: 'includeCues',
		type: 'boolean',
		default: false,
		displayOptions: { show: { downloadArtifact: [true] } },
		description:
			'Whether to also put the timed cues on the item\'s JSON as "cues": a list of {start, end, text}, times in seconds, read from the SRT (one more download when the Artifact Format is not SRT or WebVTT)',
	},
];

/** What a trigger does with a completed job's transcript (Download Artifact and its fields). */
export interface ArtifactDownload extends EventArtifact {
	download: boolean;
}

/** How a trigger reads a field: n8n's getNodeParameter with the value to take when the field is unset. */
export type ReadParameter = (name: string, unset: unknown) => unknown;

/** The default a field of `properties` declares; with `option`, the default of that option of the collection `name`. */
function declaredDefault(
	properties: readonly INodeProperties[],
	name: string,
	option?: string,
): unknown {
	const field = properties.find((property) => property.name === name);
	const declared =
		option === undefined
			? field
			: (field?.options as INodeProperties[] | undefined)?.find(
					(candidate) => candidate.name === option,
				);
	if (!declared)
		throw new Error(`No field "${[name, option].filter(Boolean).join(' → ')}" is declared`);
	return declared.default;
}

/** A field of `properties` as n8n hands it, or else the default it declares. */
export function readField(
	read: ReadParameter,
	properties: readonly INodeProperties[],
	name: string,
): unknown {
	return read(name, declaredDefault(properties, name));
}

/** An option of the collection `name` (as n8n hands the collection), or else the default the option declares. */
export function readOption(
	collection: IDataObject,
	properties: readonly INodeProperties[],
	name: string,
	option: string,
): unknown {
	return collection[option] ?? declaredDefault(properties, name, option);
}

/** The Events a trigger declares as its default: completed and failed. */
export const DEFAULT_EVENTS = declaredDefault([eventsProperty], 'events') as readonly string[];

/** Download Artifact, Artifact Format, Include Cues and Put Output File in Field, read with their declared defaults. */
export function readArtifactDownload(read: ReadParameter): ArtifactDownload {
	const field = (name: string) => readField(read, artifactProperties, name);
	return {
		download: Boolean(field('downloadArtifact')),
		format: field('artifactFormat') as DownloadFormat,
		binaryPropertyName: String(field('binaryPropertyName')).trim(),
		cues: Boolean(field('includeCues')),
	};
}
