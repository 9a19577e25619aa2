// client.mjs drives an MCP server over streamable HTTP with the client of
// the MCP TypeScript SDK, as an agent's host would, and prints what it saw
// as one JSON object on standard output.
//
//	node client.mjs PLAN.json
//
// PLAN is {"url": "http://.../mcp", "sessions": [SESSION...]}, where a
// SESSION is {"user", "token", "calls": [{"tool", "arguments"}...]} and
// may say "expectConnectError": true. For each session it connects with
// the token as a bearer token (none when empty), lists the tools and makes
// the calls in order, then the session's "completions" ({"tool",
// "argument", "value", "context"}: completion/complete of a tool's
// argument, the tool named as ref/resource tool://NAME).
//
// The SDK's client validates the structuredContent of every successful
// tools/call against the outputSchema the tool was listed with. This
// script makes sure that validation is on and took place: it observes the
// client's own validator, checks that every listed output schema compiled
// into one that rejects a value of the wrong type, marks each call the
// validator saw, and exits 1 on any validation failure, as on any error
// other than a JSON-RPC error answering a call, which it reports.
//
// Independently of the client, it compiles every advertised input and
// output schema with Ajv's JSON Schema 2020-12 validator in strict mode
// (a schema that breaks the meta-schema or that Ajv finds ambiguous fails
// the run), validates each structuredContent against the output schema
// there too, and reports for each call whether its arguments are valid
// under the input schema ("argumentsValid"), for the caller to compare
// with what the server accepted.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

// The SDK's version, from its package.json (which its exports hide).
const sdkMain = createRequire(import.meta.url).resolve('@modelcontextprotocol/sdk/client/index.js');
const sdkVersion = JSON.parse(readFileSync(join(sdkMain.slice(0, sdkMain.lastIndexOf('/dist/')), 'package.json'), 'utf8')).version;

// ajv checks the schemas as JSON Schema 2020-12, independently of the client.
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: true });
addFormats(ajv);

// compile compiles schema with ajv, failing the run when it cannot.
function compile(what, schema) {
	try {
		return ajv.compile(schema);
	} catch (err) {
		fail(`${what} is not a valid JSON Schema 2020-12: ${err.message}`);
	}
}

function fail(message) {
	process.stderr.write(`client.mjs: ${message}\n`);
	process.exit(1);
}

// current is the call being made; the validator marks it.
let current = null;

// ObservedValidator is the SDK's default validator (Ajv with formats),
// observed: each validation is recorded on the call being made.
class ObservedValidator {
	constructor() {
		this.inner = new AjvJsonSchemaValidator();
	}
	getValidator(schema) {
		const validate = this.inner.getValidator(schema);
		return (input) => {
			const result = validate(input);
			if (current) {
				current.validated = true;
				if (!result.valid) {
					current.validationError = result.errorMessage;
				}
			}
			return result;
		};
	}
}

// The texts of the errors the client raises itself when structured
// content is missing or does not match the output schema.
const validationError = /output schema|structured content/i;

async function runSession(url, session) {
	const out = { user: session.user, tools: [], calls: [] };
	const headers = {};
	if (session.token) {
		headers.Authorization = `Bearer ${session.token}`;
	}
	const client = new Client(
		{ name: 'album-mcpclient', version: '1.0.0' },
		{ capabilities: {}, jsonSchemaValidator: new ObservedValidator() }
	);
	const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
	try {
		await client.connect(transport);
	} catch (err) {
		if (session.expectConnectError) {
			out.connectError = String(err?.message ?? err);
			return out;
		}
		fail(`${session.user}: connect: ${err?.stack ?? err}`);
	}
	if (session.expectConnectError) {
		await client.close();
		fail(`${session.user}: connected, but the server should have refused the client`);
	}
	out.protocolVersion = transport.protocolVersion ?? null;
	out.server = client.getServerVersion() ?? null;

	// One page: listTools replaces the client's validators with those of
	// the page it lists.
	const listed = await client.listTools();
	if (listed.nextCursor) {
		fail(`${session.user}: tools/list has more than one page; this client validates only the last one`);
	}
	const schemas = new Map();
	for (const t of listed.tools) {
		out.tools.push(t);
		schemas.set(t.name, {
			input: compile(`${t.name}: the input schema`, t.inputSchema),
			output: t.outputSchema && compile(`${t.name}: the output schema`, t.outputSchema),
		});
		if (!t.outputSchema) {
			continue;
		}
		const validate = client.getToolOutputValidator(t.name);
		if (typeof validate !== 'function') {
			fail(`${session.user}: no output validator for ${t.name}, which has an output schema`);
		}
		if (validate(42).valid) {
			fail(`${session.user}: the output validator of ${t.name} accepts 42; it validates nothing`);
		}
	}

	for (const c of session.calls ?? []) {
		const call = { tool: c.tool, arguments: c.arguments, validated: false };
		out.calls.push(call);
		const schema = schemas.get(c.tool);
		if (schema) {
			call.argumentsValid = schema.input(c.arguments ?? {});
		}
		current = call;
		try {
			call.result = await client.callTool({ name: c.tool, arguments: c.arguments });
		} catch (err) {
			if (call.validationError || (err instanceof McpError && validationError.test(err.message))) {
				fail(`${session.user}: ${c.tool} ${JSON.stringify(c.arguments)}: ${err.message}`);
			}
			if (!(err instanceof McpError)) {
				fail(`${session.user}: ${c.tool} ${JSON.stringify(c.arguments)}: ${err?.stack ?? err}`);
			}
			call.error = { code: err.code, message: err.message };
		} finally {
			current = null;
		}
		if (call.validationError) {
			fail(`${session.user}: ${c.tool}: structured content failed validation without an error: ${call.validationError}`);
		}
		const structured = call.result?.structuredContent;
		if (structured !== undefined && schema?.output && !schema.output(structured)) {
			fail(`${session.user}: ${c.tool}: structuredContent breaks the output schema as JSON Schema 2020-12: ${ajv.errorsText(schema.output.errors)}`);
		}
	}
	for (const c of session.completions ?? []) {
		const done = { tool: c.tool, argument: c.argument, value: c.value };
		out.completions = [...(out.completions ?? []), done];
		try {
			const res = await client.complete({
				ref: { type: 'ref/resource', uri: `tool://${c.tool}` },
				argument: { name: c.argument, value: c.value },
				...(c.context && { context: { arguments: c.context } }),
			});
			done.values = res.completion.values;
			done.labels = res._meta?.['toolapi/labels'] ?? [];
		} catch (err) {
			if (!(err instanceof McpError)) {
				fail(`${session.user}: completing ${c.tool} ${c.argument}: ${err?.stack ?? err}`);
			}
			done.error = { code: err.code, message: err.message };
		}
	}
	await client.close();
	return out;
}

async function main() {
	if (process.argv.length !== 3) {
		fail('usage: node client.mjs PLAN.json');
	}
	const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
	const report = { sdk: sdkVersion, node: process.versions.node, sessions: [] };
	for (const session of plan.sessions) {
		report.sessions.push(await runSession(plan.url, session));
	}
	process.stdout.write(JSON.stringify(report) + '\n');
}

main().catch((err) => fail(err?.stack ?? String(err)));
