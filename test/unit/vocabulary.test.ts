// One vocabulary: every list the editor shows is built from the API's constants, labelled once, sorted by name.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { TranscriptionService } from '../../nodes/TranscriptionService/TranscriptionService.node';
import { TranscriptionServiceTrigger } from '../../nodes/TranscriptionServiceTrigger/TranscriptionServiceTrigger.node';
import {
	downloadFormatOptions,
	modelTierOptions,
	outputFormatOptions,
	statusOptions,
	triggerEventOptions,
	webhookEventOptions,
} from '../../nodes/shared/vocabulary';
import {
	MODEL_TIERS,
	OUTPUT_FORMATS,
	TRANSCRIPTION_STATUSES,
	WEBHOOK_EVENT_TYPES,
	WEBHOOK_TEST_EVENT,
} from '../../src/api';
import { DOWNLOAD_FORMATS } from '../../src/artifacts';

const values = (options: INodePropertyOptions[]) => options.map((option) => option.value).sort();

describe('the vocabulary (nodes/shared/vocabulary.ts)', () => {
	it.each([
		['download formats (its four and WebVTT)', downloadFormatOptions, DOWNLOAD_FORMATS],
		['model tiers', modelTierOptions, MODEL_TIERS],
		['output formats', outputFormatOptions, OUTPUT_FORMATS],
		['statuses', statusOptions, TRANSCRIPTION_STATUSES],
		['webhook events', webhookEventOptions, WEBHOOK_EVENT_TYPES],
		['trigger events', triggerEventOptions, [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT]],
	])('offers exactly the API’s %s, each with a label', (_name, options, constants) => {
		expect(values(options)).toEqual([...constants].sort());
		expect(options.every((option) => option.name.trim() !== '')).toBe(true);
	});

	it('labels a format the same wherever it is offered', () => {
		expect(outputFormatOptions.find((option) => option.value === 'srt')?.name).toBe(
			downloadFormatOptions.find((option) => option.value === 'srt')?.name,
		);
		expect(outputFormatOptions.find((option) => option.value === 'plain_text')?.name).toBe(
			downloadFormatOptions.find((option) => option.value === 'txt')?.name,
		);
	});
});

/** Every options / multiOptions list of a node, nested collections included. */
function optionLists(
	properties: INodeProperties[],
	path = '',
): Array<[string, INodePropertyOptions[]]> {
	return properties.flatMap((property) => {
		const where = `${path}${property.name}`;
		const own: Array<[string, INodePropertyOptions[]]> =
			property.type === 'options' || property.type === 'multiOptions'
				? [[where, (property.options ?? []) as INodePropertyOptions[]]]
				: [];
		const nested = (property.options ?? []).filter(
			(option): option is INodeProperties => 'displayName' in option && 'type' in option,
		);
		return [...own, ...optionLists(nested, `${where}.`)];
	});
}

describe.each([
	['Transcription Service', new TranscriptionService().description.properties],
	['Transcription Service Trigger', new TranscriptionServiceTrigger().description.properties],
])('%s: every option list is sorted by name', (_node, properties) => {
	it.each(optionLists(properties))('%s', (_where, options) => {
		const names = options.map((option) => option.name);
		expect(names).toEqual([...names].sort((left, right) => left.localeCompare(right)));
	});
});
