// The rule sets `n8n-node lint` (@n8n/node-cli 0.48) applies, spelled out because @n8n/node-cli
// does not install on Node 20. Shipped code (credentials, nodes, src) gets all of them; the sandbox,
// tests, benchmarks and scripts are dev-only and get the TypeScript rules without the community-node rules.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { globalIgnores } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importPlugin from 'eslint-plugin-import-x';
import n8nNodesPlugin from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const communityNodesRecommended = n8nCommunityNodesPlugin.configs.recommended;
const shipped = ['credentials/**/*.ts', 'nodes/**/*.ts', 'src/**/*.ts'];

export default tseslint.config(
	globalIgnores([
		'dist',
		'node_modules',
		'coverage',
		'test/e2e/n8n*',
		'test/e2e/.work',
		'demo-output',
		'**/*.js',
		'**/*.mjs',
		'**/*.cjs',
	]),
	{
		files: ['**/*.ts'],
		extends: [
			js.configs.recommended,
			tseslint.configs.recommended,
			importPlugin.configs['flat/recommended'],
		],
		rules: {
			'prefer-spread': 'off',
		},
	},
	{
		files: shipped,
		extends: [communityNodesRecommended],
		rules: {
			'no-console': 'error',
			// The service's side of the contract (signing, format selection, …) is for the sandbox and tests only.
			'no-restricted-imports': [
				'error',
				{
					patterns: [
						{
							group: ['**/src/service', '**/src/service/*'],
							message: 'src/service is not shipped: nodes never import it.',
						},
					],
				},
			],
		},
	},
	{
		plugins: { 'n8n-nodes-base': n8nNodesPlugin },
		settings: {
			'import-x/resolver-next': [createTypeScriptImportResolver()],
		},
	},
	{
		files: ['package.json'],
		extends: [communityNodesRecommended],
		rules: {
			...n8nNodesPlugin.configs.community.rules,
		},
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: {
				extraFileExtensions: ['.json'],
			},
		},
	},
	{
		files: ['./credentials/**/*.ts'],
		rules: {
			...n8nNodesPlugin.configs.credentials.rules,
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: ['./nodes/**/*.ts'],
		rules: {
			...n8nNodesPlugin.configs.nodes.rules,
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
);
