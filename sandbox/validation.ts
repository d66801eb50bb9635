// Request validation against the OpenAPI document (openapi/), so the contract and the server cannot
// drift: one compiled Ajv validator per operation and request part. Failures are 422 validation_error
// with details.errors [{location, field, message}]. Parameters the document marks with
// x-invalid-error-code (artifact formats) are left to the handler, which answers that code instead.

import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { findOperation, loadOpenApiDocument, requestSchemas } from '../openapi';
import type { ParameterObject, ReferenceObject } from '../openapi';
import type { OperationId } from '../src/api';
import { OPERATION_IDS } from '../src/api';
import type { ValidationIssue } from './errors';
import { ApiError } from './errors';

type JsonSchema = Record<string, unknown>;
type Part = 'body' | 'query' | 'headers' | 'params';

const LOCATIONS: Record<Part, ValidationIssue['location']> = {
	body: 'body',
	query: 'query',
	headers: 'header',
	params: 'path',
};

interface OperationValidators {
	validators: Partial<Record<Part, ValidateFunction>>;
	/** Lower-cased header names the document declares (Node lower-cases incoming headers too). */
	headerNames: string[];
}

export class RequestValidator {
	private readonly operations = new Map<OperationId, OperationValidators>();

	constructor() {
		// Query, path and header values arrive as strings: coerce them as the document's types say.
		const coercing = makeAjv(true);
		const strict = makeAjv(false);
		for (const operationId of OPERATION_IDS) {
			const schemas = requestSchemas(operationId) as Partial<Record<Part, JsonSchema>>;
			const handlerOwned = handlerOwnedParameters(operationId);
			const validators: OperationValidators['validators'] = {};
			for (const part of Object.keys(LOCATIONS) as Part[]) {
				const schema = schemas[part];
				if (schema) {
					validators[part] = (part === 'body' ? strict : coercing).compile(
						withoutProperties(schema, handlerOwned),
					);
				}
			}
			this.operations.set(operationId, {
				validators,
				headerNames: Object.keys((schemas.headers?.properties as JsonSchema | undefined) ?? {}),
			});
		}
	}

	/** Validates (and coerces in place) query, path parameters and headers. */
	validateParameters(
		operationId: OperationId,
		input: {
			query: Record<string, unknown>;
			params: Record<string, unknown>;
			headers: Record<string, unknown>;
		},
	): void {
		const operation = this.operations.get(operationId);
		if (!operation) return;
		const headers: Record<string, unknown> = {};
		for (const name of operation.headerNames) {
			if (input.headers[name] !== undefined) headers[name] = input.headers[name];
		}
		const issues = [
			...run(operation.validators.query, 'query', input.query),
			...run(operation.validators.params, 'params', input.params),
			...run(operation.validators.headers, 'headers', headers),
		];
		if (issues.length > 0) throw ApiError.validation(issues);
	}

	validateBody(operationId: OperationId, body: unknown): void {
		const issues = run(this.operations.get(operationId)?.validators.body, 'body', body);
		if (issues.length > 0) throw ApiError.validation(issues);
	}
}

function makeAjv(coerce: boolean): Ajv2020 {
	const ajv = new Ajv2020({
		allErrors: true,
		strict: false,
		coerceTypes: coerce,
		useDefaults: coerce,
	});
	addFormats(ajv);
	return ajv;
}

/** Names of the parameters the document marks with x-invalid-error-code (the handler answers those). */
function handlerOwnedParameters(operationId: OperationId): Set<string> {
	const { operation, pathItem } = findOperation(operationId);
	const parameters = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map(
		resolveParameter,
	);
	return new Set(
		parameters
			.filter((parameter) => parameter['x-invalid-error-code'] !== undefined)
			.map((p) => p.name),
	);
}

function resolveParameter(parameter: ParameterObject | ReferenceObject): ParameterObject {
	if (!('$ref' in parameter)) return parameter;
	return loadOpenApiDocument().components.parameters[parameter.$ref.split('/').pop() ?? ''];
}

function withoutProperties(schema: JsonSchema, names: Set<string>): JsonSchema {
	const properties = schema.properties as Record<string, JsonSchema> | undefined;
	if (!properties || names.size === 0) return schema;
	const kept = Object.fromEntries(Object.entries(properties).filter(([name]) => !names.has(name)));
	const required = Array.isArray(schema.required)
		? (schema.required as string[]).filter((name) => !names.has(name))
		: undefined;
	return { ...schema, properties: kept, ...(required ? { required } : {}) };
}

function run(validate: ValidateFunction | undefined, part: Part, data: unknown): ValidationIssue[] {
	if (!validate || validate(data)) return [];
	return (validate.errors ?? []).map((error) => toIssue(error, LOCATIONS[part]));
}

function toIssue(error: ErrorObject, location: ValidationIssue['location']): ValidationIssue {
	const path = error.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
	const params = error.params as { missingProperty?: string; additionalProperty?: string };
	const child = params.missingProperty ?? params.additionalProperty;
	const field = child ? (path ? `${path}.${child}` : child) : path;
	const message =
		error.keyword === 'additionalProperties'
			? 'is not an allowed property'
			: (error.message ?? 'is invalid');
	return { location, field, message };
}
