// Dev-only access to the machine-readable contract (sandbox and tests). Not shipped in the n8n package.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseDocument } from 'yaml';
import type { OperationId } from '../src/api';

export type JSONSchema = { [keyword: string]: unknown };

export interface ParameterObject {
	name: string;
	in: 'query' | 'header' | 'path' | 'cookie';
	required?: boolean;
	description?: string;
	schema?: JSONSchema;
	/** Invalid values answer this error code instead of 422 `validation_error`. */
	'x-invalid-error-code'?: string;
	// Extensions only, so that `'$ref' in parameter` tells a ParameterObject from a ReferenceObject.
	[extension: `x-${string}`]: unknown;
}

export interface ReferenceObject {
	$ref: string;
}

export interface ResponseObject {
	description: string;
	headers?: Record<string, unknown>;
	content?: Record<string, { schema?: JSONSchema; [key: string]: unknown }>;
	'x-error-codes'?: string[];
	[key: string]: unknown;
}

export interface OperationObject {
	operationId: string;
	summary?: string;
	description?: string;
	parameters?: Array<ParameterObject | ReferenceObject>;
	requestBody?: {
		required?: boolean;
		content: Record<string, { schema?: JSONSchema; [key: string]: unknown }>;
	};
	responses: Record<string, ResponseObject | ReferenceObject>;
	callbacks?: Record<string, Record<string, PathItemObject>>;
	'x-rate-limit-bucket'?: string;
	[key: string]: unknown;
}

export type HttpMethodKey =
	'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

export type PathItemObject = { parameters?: Array<ParameterObject | ReferenceObject> } & {
	[method in HttpMethodKey]?: OperationObject;
};

export interface SecuritySchemeObject {
	type: string;
	scheme?: string;
	bearerFormat?: string;
	description?: string;
}

/** One row of the root `x-error-catalog`. */
export interface ErrorCatalogEntry {
	code: string;
	status: number;
	condition: string;
}

export interface OpenApiDocument {
	openapi: string;
	info: { title: string; version: string; [key: string]: unknown };
	servers: Array<{
		url: string;
		variables?: Record<string, { default: string; description?: string }>;
	}>;
	paths: Record<string, PathItemObject>;
	webhooks: Record<string, PathItemObject>;
	components: {
		schemas: Record<string, JSONSchema>;
		parameters: Record<string, ParameterObject>;
		responses: Record<string, ResponseObject>;
		headers: Record<string, unknown>;
		securitySchemes: Record<string, SecuritySchemeObject>;
		[key: string]: unknown;
	};
	security: Array<Record<string, string[]>>;
	'x-error-catalog': ErrorCatalogEntry[];
	[key: string]: unknown;
}

/** Ready for Ajv 2020: refs inlined, OpenAPI-only keywords removed. Query/headers/params are object schemas. */
export interface RequestSchemas {
	body?: JSONSchema;
	query?: JSONSchema;
	/** Header names in lower case, as Node and Fastify present them. */
	headers?: JSONSchema;
	params?: JSONSchema;
	/**
	 * Parameters whose invalid values answer a specific error instead of 422 `validation_error`
	 * (from `x-invalid-error-code`), by part and name, e.g. `{ params: { path_format: 'unsupported_artifact_format' } }`.
	 */
	invalidValueCodes?: Partial<Record<'query' | 'headers' | 'params', Record<string, string>>>;
}

export interface ServedDocumentOptions {
	/** Replaces the default of the `base_url` server variable, e.g. the sandbox's actual address. */
	baseUrl?: string;
}

export const API_REFERENCE_PATH = '/developers/api-reference';

const HTTP_METHODS: readonly HttpMethodKey[] = [
	'get',
	'put',
	'post',
	'delete',
	'options',
	'head',
	'patch',
	'trace',
];

// OpenAPI annotations that are not JSON Schema keywords; Ajv's strict mode rejects unknown keywords.
const OPENAPI_ONLY_KEYWORDS = new Set(['example', 'discriminator', 'xml', 'externalDocs']);
const SCHEMA_MAP_KEYWORDS = new Set([
	'properties',
	'patternProperties',
	'$defs',
	'dependentSchemas',
]);
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_VALUE_KEYWORDS = new Set([
	'items',
	'not',
	'if',
	'then',
	'else',
	'contains',
	'additionalProperties',
	'propertyNames',
	'unevaluatedItems',
	'unevaluatedProperties',
]);

const fileCache = new Map<string, string>();

function readOwnFile(name: string): string {
	let text = fileCache.get(name);
	if (text === undefined) {
		text = readFileSync(path.join(__dirname, name), 'utf8');
		fileCache.set(name, text);
	}
	return text;
}

let cachedDocument: OpenApiDocument | undefined;

/** The parsed openapi.yaml, parsed once. Shared: do not mutate it. */
export function loadOpenApiDocument(): OpenApiDocument {
	cachedDocument ??= parse(readOwnFile('openapi.yaml')) as OpenApiDocument;
	return cachedDocument;
}

export function openApiYaml(options: ServedDocumentOptions = {}): string {
	const text = readOwnFile('openapi.yaml');
	if (options.baseUrl === undefined) return text;
	// Editing the YAML document (not re-serializing a plain object) keeps comments and layout.
	const document = parseDocument(text);
	document.setIn(['servers', 0, 'variables', 'base_url', 'default'], options.baseUrl);
	return document.toString({ lineWidth: 0 });
}

export function openApiJson(options: ServedDocumentOptions = {}): string {
	const document = loadOpenApiDocument();
	if (options.baseUrl === undefined) return JSON.stringify(document, null, 2);
	const copy = structuredClone(document);
	const variables = copy.servers[0].variables;
	if (variables?.base_url) variables.base_url.default = options.baseUrl;
	return JSON.stringify(copy, null, 2);
}

export interface ServedArazzoOptions {
	/**
	 * Replaces the `./openapi.yaml` source description, which is right beside the file on disk but not at the
	 * served path /api/v1/workflows/ (there it is `../openapi.yaml`).
	 */
	openApiUrl?: string;
}

export function arazzoYaml(options: ServedArazzoOptions = {}): string {
	const text = readOwnFile('transcribe.arazzo.yaml');
	if (options.openApiUrl === undefined) return text;
	const document = parseDocument(text);
	document.setIn(['sourceDescriptions', 0, 'url'], options.openApiUrl);
	return document.toString({ lineWidth: 0 });
}

export function apiReferenceHtml(): string {
	return readOwnFile('api-reference.html');
}

/** Every error code the service answers with, its HTTP status and condition (root `x-error-catalog`). */
export function errorCatalog(): readonly ErrorCatalogEntry[] {
	return loadOpenApiDocument()['x-error-catalog'];
}

/** `{base_url}/developers/api-reference#<code>`; codes outside the catalogue point to the general `#errors` section. */
export function resolutionUrl(baseUrl: string, code: string): string {
	const anchor = errorCatalog().some((entry) => entry.code === code) ? code : 'errors';
	return `${baseUrl.replace(/\/+$/, '')}${API_REFERENCE_PATH}#${anchor}`;
}

export interface LocatedOperation {
	path: string;
	method: HttpMethodKey;
	operation: OperationObject;
	pathItem: PathItemObject;
}

export function findOperation(operationId: OperationId): LocatedOperation {
	for (const [operationPath, pathItem] of Object.entries(loadOpenApiDocument().paths)) {
		for (const method of HTTP_METHODS) {
			const operation = pathItem[method];
			if (operation?.operationId === operationId)
				return { path: operationPath, method, operation, pathItem };
		}
	}
	throw new Error(`openapi.yaml has no operation "${operationId}"`);
}

/** A schema of `components.schemas`, refs inlined, ready for Ajv 2020 (e.g. to check a response body). */
export function componentSchema(name: string): JSONSchema {
	const ref = `#/components/schemas/${name}`;
	return inlineSchema(lookupPointer(ref), [ref]);
}

const requestSchemaCache = new Map<OperationId, RequestSchemas>();

/**
 * JSON Schemas of one operation's request parts, each a fresh copy (callers such as Fastify may mutate them).
 * Query/path values arrive as strings: compile with `coerceTypes` (and `useDefaults` to apply the defaults).
 */
export function requestSchemas(operationId: OperationId): RequestSchemas {
	let schemas = requestSchemaCache.get(operationId);
	if (schemas === undefined) {
		schemas = buildRequestSchemas(operationId);
		requestSchemaCache.set(operationId, schemas);
	}
	return structuredClone(schemas);
}

function buildRequestSchemas(operationId: OperationId): RequestSchemas {
	const { operation, pathItem } = findOperation(operationId);
	const result: RequestSchemas = {};

	const jsonBody = operation.requestBody?.content['application/json']?.schema;
	if (jsonBody) result.body = inlineSchema(jsonBody, []);

	// Operation-level parameters override path-level ones with the same name and location.
	const byKey = new Map<string, ParameterObject>();
	for (const entry of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
		const parameter = resolveRef(entry) as ParameterObject;
		byKey.set(`${parameter.in}:${parameter.name}`, parameter);
	}

	const parts: Array<['query' | 'headers' | 'params', ParameterObject['in']]> = [
		['query', 'query'],
		['headers', 'header'],
		['params', 'path'],
	];
	for (const [part, location] of parts) {
		const parameters = [...byKey.values()].filter((parameter) => parameter.in === location);
		if (parameters.length === 0) continue;
		result[part] = parametersSchema(parameters, location === 'header');
		for (const parameter of parameters) {
			const code = parameter['x-invalid-error-code'];
			if (typeof code !== 'string') continue;
			const name = location === 'header' ? parameter.name.toLowerCase() : parameter.name;
			result.invalidValueCodes ??= {};
			(result.invalidValueCodes[part] ??= {})[name] = code;
		}
	}
	return result;
}

function parametersSchema(parameters: ParameterObject[], lowerCaseNames: boolean): JSONSchema {
	const properties: Record<string, JSONSchema> = {};
	const required: string[] = [];
	for (const parameter of parameters) {
		const name = lowerCaseNames ? parameter.name.toLowerCase() : parameter.name;
		properties[name] = inlineSchema(parameter.schema ?? {}, []);
		if (parameter.required) required.push(name);
	}
	return required.length > 0
		? { type: 'object', properties, required }
		: { type: 'object', properties };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lookupPointer(ref: string): unknown {
	if (!ref.startsWith('#/')) throw new Error(`Only local refs are supported, got "${ref}"`);
	let node: unknown = loadOpenApiDocument();
	for (const rawSegment of ref.slice(2).split('/')) {
		const segment = rawSegment.replace(/~1/g, '/').replace(/~0/g, '~');
		if (!isPlainObject(node) || !(segment in node)) throw new Error(`Unresolvable ref "${ref}"`);
		node = node[segment];
	}
	return node;
}

function resolveRef(value: unknown): unknown {
	let current = value;
	const seen = new Set<string>();
	while (isPlainObject(current) && typeof current.$ref === 'string') {
		if (seen.has(current.$ref)) throw new Error(`Circular ref "${current.$ref}"`);
		seen.add(current.$ref);
		current = lookupPointer(current.$ref);
	}
	return current;
}

function inlineSchema(schema: unknown, refStack: readonly string[]): JSONSchema {
	if (!isPlainObject(schema)) throw new Error('Expected a schema object');
	const { $ref, ...rest } = schema;
	if (typeof $ref === 'string') {
		if (refStack.includes($ref)) throw new Error(`Recursive schema "${$ref}" cannot be inlined`);
		const target = inlineSchema(lookupPointer($ref), [...refStack, $ref]);
		const siblings = inlineSchema(rest, refStack);
		// A $ref with sibling keywords means both apply (JSON Schema 2020-12).
		return Object.keys(siblings).length === 0 ? target : { ...siblings, allOf: [target] };
	}

	const result: JSONSchema = {};
	for (const [keyword, value] of Object.entries(rest)) {
		if (keyword.startsWith('x-') || OPENAPI_ONLY_KEYWORDS.has(keyword)) continue;
		if (SCHEMA_MAP_KEYWORDS.has(keyword) && isPlainObject(value)) {
			result[keyword] = Object.fromEntries(
				Object.entries(value).map(([name, subschema]) => [name, inlineSchema(subschema, refStack)]),
			);
		} else if (SCHEMA_LIST_KEYWORDS.has(keyword) && Array.isArray(value)) {
			result[keyword] = value.map((subschema) => inlineSchema(subschema, refStack));
		} else if (SCHEMA_VALUE_KEYWORDS.has(keyword) && isPlainObject(value)) {
			result[keyword] = inlineSchema(value, refStack);
		} else {
			result[keyword] = structuredClone(value);
		}
	}
	return result;
}
