// Suite 4: n8n offers the action node to AI agents (usableAsTool) and loads every node under the
// names users see for an installed community package.
import { PACKAGE_NAME } from '../support/n8n/package';
import { suiteHandles } from '../support/n8n/suite';

const { context, api } = suiteHandles();

describe(`Node types in n8n ${context.n8nVersion} (Node ${context.nodeVersion})`, () => {
	it('lists the action node, its AI-tool variant and both triggers', async () => {
		const names = await api.nodeTypeNames();

		expect(names).toContain(`${PACKAGE_NAME}.transcriptionService`);
		expect(names).toContain(`${PACKAGE_NAME}.transcriptionServiceTool`);
		expect(names).toContain(`${PACKAGE_NAME}.transcriptionServiceTrigger`);
		expect(names).toContain(`${PACKAGE_NAME}.transcriptionServicePollingTrigger`);
	});
});
