// A minimal MCP Apps host for the browser test: it connects the MCP
// TypeScript SDK client to the server's /mcp (through the test page's own
// origin), lists the tools, reads the ui:// resource a tool names in
// _meta.ui.resourceUri, shows it in a sandboxed frame under a Content
// Security Policy built from the resource's _meta.ui.csp (scripts allowed
// only by the hash of the page's own inline scripts, so that an inline
// event handler or a remote script would not run), and links it with the
// app bridge of @modelcontextprotocol/ext-apps, which forwards the app's
// tools/call to the server.
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const log = [];
let client = null;
let current = null;

async function sha256(text) {
	const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
	return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

// policy returns the Content Security Policy of a page: what its
// _meta.ui.csp declares, scripts by the hashes of its inline scripts.
async function policy(html, csp) {
	const doc = new DOMParser().parseFromString(html, "text/html");
	const hashes = [];
	for (const s of doc.querySelectorAll("script")) {
		if (s.src) throw new Error("the app loads a script: " + s.src);
		hashes.push("'sha256-" + (await sha256(s.textContent)) + "'");
	}
	const res = (csp && csp.resourceDomains) || [];
	const conn = (csp && csp.connectDomains) || [];
	return [
		"default-src 'none'",
		"script-src " + (hashes.join(" ") || "'none'") + (res.length ? " " + res.join(" ") : ""),
		"style-src 'unsafe-inline'" + (res.length ? " " + res.join(" ") : ""),
		"img-src data:" + (res.length ? " " + res.join(" ") : ""),
		"connect-src " + (conn.length ? conn.join(" ") : "'none'"),
		"frame-src 'none'",
		"base-uri 'none'",
		"form-action 'none'",
	].join("; ");
}

window.host = {
	log,
	violations: [],
	elicitations: 0,

	async connect(token) {
		client = new Client({ name: "toolapi-apphost", version: "1.0.0" }, { capabilities: { elicitation: {} } });
		client.setRequestHandler(ElicitRequestSchema, async (req) => {
			window.host.elicitations++;
			log.push("elicit: " + req.params.message);
			return { action: "accept", content: {} };
		});
		const transport = new StreamableHTTPClientTransport(new URL("/mcp", location.href), {
			requestInit: { headers: { Authorization: "Bearer " + token } },
		});
		await client.connect(transport);
		const caps = client.getServerCapabilities() || {};
		return { extensions: Object.keys(caps.extensions || {}) };
	},

	// open shows the app of the tool named name; with input, the host
	// sends the arguments a model proposed; with run as well, it calls the
	// tool with them and sends the result, as a host does for a model's
	// call.
	async open(name, input, run) {
		log.push("open " + name);
		const { tools } = await client.listTools();
		log.push("open: listed");
		const tool = tools.find((t) => t.name === name);
		if (!tool) throw new Error("no tool " + name);
		const uri = getToolUiResourceUri(tool);
		if (!uri) throw new Error(name + " has no app");
		const read = await client.readResource({ uri });
		log.push("open: read " + uri);
		const c = read.contents[0];
		if (c.mimeType !== "text/html;profile=mcp-app") throw new Error("MIME type " + c.mimeType);
		const ui = (c._meta && c._meta.ui) || {};
		const csp = await policy(c.text, ui.csp);
		const html = c.text.replace("<head>", '<head><meta http-equiv="Content-Security-Policy" content="' + csp + '">');

		if (current) {
			await current.bridge.teardownResource({}).catch(() => {});
			log.push("open: torn down the last app");
			current.frame.remove();
		}
		const frame = document.createElement("iframe");
		frame.id = "app";
		frame.title = "App of " + (tool.title || name);
		frame.setAttribute("sandbox", "allow-scripts");
		document.getElementById("frame-box").appendChild(frame);

		const bridge = new AppBridge(null, { name: "toolapi-apphost", version: "1.0.0" },
			{ serverTools: {}, serverResources: {}, logging: {} },
			{ hostContext: { theme: "light", displayMode: "inline", toolInfo: { tool } } });
		bridge.oncalltool = async (params) => {
			log.push("tools/call " + params.name + (params._meta && params._meta["io.toolapi/validate"] ? " (validate)" : ""));
			const result = await client.callTool(params);
			if (!(params._meta && params._meta["io.toolapi/validate"])) {
				window.host.lastArgs = params.arguments;
				window.host.lastResult = result;
			}
			return result;
		};
		bridge.onreadresource = async (params) => client.readResource(params);
		bridge.onsizechange = ({ height }) => {
			if (height) frame.style.height = Math.min(height + 4, 4000) + "px";
		};
		const ready = new Promise((resolve) => { bridge.oninitialized = resolve; });
		// The bridge listens before the page loads: the page's first
		// message is its ui/initialize request.
		await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
		frame.srcdoc = html;
		await ready;
		log.push("open: initialized");
		current = { frame, bridge };
		if (input) {
			await bridge.sendToolInput({ arguments: input });
			log.push("open: sent the input");
			if (run) {
				const result = await client.callTool({ name, arguments: input });
				log.push("open: called");
				await bridge.sendToolResult(result);
				log.push("open: sent the result");
			}
		}
		return { uri, csp, bytes: new TextEncoder().encode(c.text).length };
	},
};
// hostClientCall calls a tool straight through the client, for comparing
// what the app shows with what the server says.
window.hostClientCall = (name, args) => client.callTool({ name, arguments: args });
document.addEventListener("securitypolicyviolation", (e) => window.host.violations.push(e.violatedDirective + " " + e.blockedURI));
window.dispatchEvent(new Event("host-ready"));
