// check.mjs runs toolapi's function-calling exports through the model
// SDKs' own schema code, and an MCP server through the MCP clients of the
// AI SDK and LangChain, and prints what it saw as one JSON object on
// standard output.
//
//	node check.mjs PLAN.json
//
// PLAN is {"exports": [EXPORT...], "mcp": MCP}. An EXPORT is {"registry",
// "format", "declarations"}: what `APP tool export --format FORMAT` prints.
// Each declaration's name must match ^[a-zA-Z0-9_-]{1,64}$; then
//
//   - openai-strict, openai-responses-strict: every declaration marked
//     strict goes through the openai package's toStrictJsonSchema, which
//     throws on a schema strict mode cannot take, and must come out as it
//     went in (but for the empty required list it adds to an object
//     without properties): the export is already strict;
//   - anthropic-strict: every declaration marked strict goes through
//     @anthropic-ai/sdk's transformJSONSchema, which throws on a schema it
//     cannot transform, and must come out as it went in (but for the type
//     it drops beside an enum): nothing is left for the SDK to fold into
//     descriptions;
//   - gemini: the declarations go into a generateContent request of
//     @google/genai (its fetch answered here, nothing leaves the machine),
//     and every schema in the request the SDK would send must keep to the
//     fields of the Gemini API's Schema object, with one type each.
//
// MCP is {"http": {"url", "token"}, "stdio": {"command", "args"}, "calls":
// {NAME: ARGUMENTS...}}: with each client over each transport it lists the
// tools and calls every listed one with the arguments of its name. The
// names it reports are those the client hands a model: the AI SDK's tool
// keys, and the function names LangChain's convertToOpenAITool gives.
import { readFileSync } from 'node:fs';
import { toStrictJsonSchema } from 'openai/lib/transform';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import { GoogleGenAI } from '@google/genai';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const modelName = /^[a-zA-Z0-9_-]{1,64}$/;

// The fields of the Gemini API's Schema object.
const geminiFields = new Set([
	'anyOf', 'default', 'description', 'enum', 'example', 'format', 'items', 'maxItems', 'maxLength',
	'maxProperties', 'maximum', 'minItems', 'minLength', 'minProperties', 'minimum', 'nullable', 'pattern',
	'properties', 'propertyOrdering', 'required', 'title', 'type',
]);

// geminiFormats are the formats the Gemini API's Schema takes, by type.
const geminiFormats = { STRING: ['enum', 'date-time'], NUMBER: ['float', 'double'], INTEGER: ['int32', 'int64'] };

function geminiProblems(schema, path, out) {
	if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
		out.push(`${path}: not a schema object`);
		return;
	}
	for (const key of Object.keys(schema)) {
		if (!geminiFields.has(key)) {
			out.push(`${path}: field ${key} is outside the Gemini Schema`);
		}
	}
	if (schema.anyOf === undefined && typeof schema.type !== 'string') {
		out.push(`${path}: type ${JSON.stringify(schema.type)} is not one type`);
	}
	if (schema.format !== undefined && !(geminiFormats[String(schema.type).toUpperCase()] ?? []).includes(schema.format)) {
		out.push(`${path}: format ${JSON.stringify(schema.format)} is not one Gemini takes for type ${schema.type}`);
	}
	if (String(schema.type).toUpperCase() === 'OBJECT' && Object.keys(schema.properties ?? {}).length === 0) {
		out.push(`${path}: an object without properties, which Gemini refuses`);
	}
	for (const [k, v] of Object.entries(schema.properties ?? {})) {
		geminiProblems(v, `${path}.${k}`, out);
	}
	if (schema.items !== undefined) {
		geminiProblems(schema.items, `${path}[]`, out);
	}
	for (const b of schema.anyOf ?? []) {
		geminiProblems(b, `${path}|`, out);
	}
}

// geminiRequest returns the body @google/genai sends for a generateContent
// request declaring decls.
async function geminiRequest(decls) {
	let body;
	const realFetch = globalThis.fetch;
	globalThis.fetch = async (url, init) => {
		body = JSON.parse(init.body);
		return new Response(
			JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }] }),
			{ status: 200, headers: { 'content-type': 'application/json' } },
		);
	};
	try {
		const ai = new GoogleGenAI({ apiKey: 'interop-test' });
		await ai.models.generateContent({
			model: 'gemini-2.5-flash',
			contents: 'Which tool?',
			config: { tools: [{ functionDeclarations: structuredClone(decls) }] },
		});
	} finally {
		globalThis.fetch = realFetch;
	}
	return body;
}

// firstDifference returns the path of the first place where the SDK's
// transform of a schema differs from the schema, or null when it keeps it
// as it is (apart from what same forgives): a strict export must already
// be what the SDK would send.
function firstDifference(ours, theirs, same, path = '$') {
	if (typeof ours !== typeof theirs || ours === null || theirs === null || typeof ours !== 'object' || Array.isArray(ours) !== Array.isArray(theirs)) {
		return JSON.stringify(ours) === JSON.stringify(theirs) ? null : path;
	}
	for (const k of new Set([...Object.keys(ours), ...Object.keys(theirs)])) {
		if (!(k in ours) || !(k in theirs)) {
			if (!same(ours, theirs, k)) {
				return `${path}.${k}`;
			}
			continue;
		}
		const d = firstDifference(ours[k], theirs[k], same, `${path}.${k}`);
		if (d !== null) {
			return d;
		}
	}
	return null;
}

// openaiSame forgives the empty required list toStrictJsonSchema adds to
// an object without properties.
function openaiSame(ours, theirs, key) {
	return key === 'required' && !(key in ours) && Array.isArray(theirs[key]) && theirs[key].length === 0;
}

// anthropicSame forgives the type transformJSONSchema drops beside an enum
// or a const (the values say the type).
function anthropicSame(ours, theirs, key) {
	return key === 'type' && !(key in theirs) && ('enum' in ours || 'const' in ours);
}

async function checkExport(exp) {
	const problems = [];
	let throughSDK = 0;
	const decls = exp.declarations;
	for (const d of decls) {
		const name = d.function?.name ?? d.name;
		if (!modelName.test(name)) {
			problems.push(`name ${JSON.stringify(name)} does not match ${modelName}`);
		}
	}
	switch (exp.format) {
		case 'openai-strict':
		case 'openai-responses-strict':
			for (const d of decls) {
				const strict = d.function?.strict ?? d.strict;
				if (strict !== true) {
					continue;
				}
				try {
					const ours = d.function?.parameters ?? d.parameters;
					const where = firstDifference(ours, toStrictJsonSchema(ours), openaiSame);
					if (where !== null) {
						problems.push(`${d.function?.name ?? d.name}: openai toStrictJsonSchema changes the schema at ${where}: it is not already strict`);
					}
					throughSDK++;
				} catch (err) {
					problems.push(`${d.function?.name ?? d.name}: openai toStrictJsonSchema: ${err.message}`);
				}
			}
			break;
		case 'anthropic-strict':
			for (const d of decls) {
				if (d.strict !== true) {
					continue;
				}
				try {
					const where = firstDifference(d.input_schema, transformJSONSchema(d.input_schema), anthropicSame);
					if (where !== null) {
						problems.push(`${d.name}: anthropic transformJSONSchema changes the schema at ${where}: something is left to fold`);
					}
					throughSDK++;
				} catch (err) {
					problems.push(`${d.name}: anthropic transformJSONSchema: ${err.message}`);
				}
			}
			break;
		case 'gemini': {
			const body = await geminiRequest(decls);
			const sent = body?.tools?.[0]?.functionDeclarations ?? [];
			if (sent.length !== decls.length) {
				problems.push(`@google/genai sent ${sent.length} declarations of ${decls.length}`);
			}
			for (const fd of sent) {
				if (fd.parametersJsonSchema !== undefined) {
					problems.push(`${fd.name}: sent as parametersJsonSchema, not as Gemini Schema`);
				}
				if (fd.parameters !== undefined) {
					geminiProblems(fd.parameters, fd.name, problems);
				}
				throughSDK++;
			}
			break;
		}
	}
	return { registry: exp.registry, format: exp.format, declarations: decls.length, throughSDK, problems };
}

function resultText(r) {
	return (r?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

async function aiSDK(transportName) {
	const m = plan.mcp;
	const transport = transportName === 'http'
		? { type: 'http', url: m.http.url, headers: { Authorization: `Bearer ${m.http.token}` } }
		: new Experimental_StdioMCPTransport({ command: m.stdio.command, args: m.stdio.args });
	const client = await createMCPClient({ transport });
	const out = { client: 'ai-sdk', transport: transportName, tools: [], calls: [] };
	try {
		const tools = await client.tools();
		for (const [name, t] of Object.entries(tools)) {
			out.tools.push(name);
			const call = { name, ok: false };
			try {
				const r = await t.execute(m.calls[name] ?? {}, { toolCallId: `call_${name}`, messages: [] });
				call.ok = r?.isError !== true;
				call.text = resultText(r);
			} catch (err) {
				call.error = String(err?.message ?? err);
			}
			out.calls.push(call);
		}
	} finally {
		await client.close();
	}
	return out;
}

async function langChain(transportName) {
	const m = plan.mcp;
	const server = transportName === 'http'
		? { transport: 'http', url: m.http.url, headers: { Authorization: `Bearer ${m.http.token}` } }
		: { transport: 'stdio', command: m.stdio.command, args: m.stdio.args };
	const client = new MultiServerMCPClient({
		mcpServers: { album: server },
		prefixToolNameWithServerName: false,
		additionalToolNamePrefix: '',
		throwOnLoadError: true,
	});
	const out = { client: 'langchain', transport: transportName, tools: [], calls: [] };
	try {
		const tools = await client.getTools();
		for (const t of tools) {
			// What LangChain's OpenAI binding would send as the name.
			out.tools.push(convertToOpenAITool(t).function.name);
			const call = { name: t.name, ok: false };
			try {
				const r = await t.invoke(m.calls[t.name] ?? {});
				call.ok = true;
				call.text = typeof r === 'string' ? r : JSON.stringify(r);
			} catch (err) {
				call.error = String(err?.message ?? err);
			}
			out.calls.push(call);
		}
	} finally {
		await client.close();
	}
	return out;
}

const report = { node: process.versions.node, exports: [], mcp: [] };
for (const exp of plan.exports ?? []) {
	report.exports.push(await checkExport(exp));
}
if (plan.mcp) {
	for (const transport of ['http', 'stdio']) {
		report.mcp.push(await aiSDK(transport));
		report.mcp.push(await langChain(transport));
	}
}
process.stdout.write(JSON.stringify(report));
