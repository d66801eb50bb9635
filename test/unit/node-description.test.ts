import { TranscriptionService } from '../../nodes/TranscriptionService/TranscriptionService.node';

const description = new TranscriptionService().description;

/** Every resource.operation pair the node offers, read from its own operation selectors. */
function offeredOperations(): string[] {
	const pairs: string[] = [];
	for (const property of description.properties) {
		const resources = property.displayOptions?.show?.resource;
		if (property.name !== 'operation' || !Array.isArray(resources)) continue;
		for (const option of property.options ?? []) {
			if ('value' in option) pairs.push(`${String(resources[0])}.${String(option.value)}`);
		}
	}
	return pairs.sort();
}

describe('Transcription Service node description', () => {
	it('has a canvas subtitle label for every operation it offers, and none for operations it does not', () => {
		const map = /=\{\{ (\{.*\})\[/.exec(String(description.subtitle));
		expect(map).not.toBeNull();
		const labels = JSON.parse((map as RegExpExecArray)[1]) as Record<string, string>;
		expect(Object.keys(labels).sort()).toEqual(offeredOperations());
		expect(Object.values(labels).every((label) => label.trim().length > 0)).toBe(true);
	});

	it('is usable as an AI tool, with a description written for the agent', () => {
		expect(description.usableAsTool).toEqual({
			replacements: {
				description: expect.stringMatching(/^Transcribes speech in audio and video/),
			},
		});
	});
});
