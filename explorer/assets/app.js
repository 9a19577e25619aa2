// The script of a tool's MCP App: it talks to the agent host over
// postMessage JSON-RPC (ui/initialize, tools/call, the tool-input and
// tool-result notifications), reads the form into the tool's arguments,
// places violations on their fields and renders outputs as the explorer
// does. It builds every element with the DOM, never from markup.
(function () {
	"use strict";
	var main = document.getElementById("app");
	var form = document.getElementById("run-form");
	var toolName = main.dataset.tool;
	var kinds = JSON.parse(main.dataset.kinds || "{}");
	var outputs = JSON.parse(main.dataset.outputs || "[]");
	var needsConfirm = main.hasAttribute("data-confirm");
	var status = document.getElementById("status");
	var summary = document.getElementById("error-summary");
	var resultBox = document.getElementById("result");
	var host = window.parent;
	var nextID = 1;
	var pending = new Map();
	var busy = false;

	// The JSON-RPC link with the host.
	function send(msg) { host.postMessage(msg, "*"); }
	function request(method, params) {
		var id = nextID++;
		send({ jsonrpc: "2.0", id: id, method: method, params: params });
		return new Promise(function (resolve, reject) { pending.set(id, { resolve: resolve, reject: reject }); });
	}
	function notify(method, params) { send({ jsonrpc: "2.0", method: method, params: params || {} }); }
	window.addEventListener("message", function (ev) {
		if (ev.source !== host) return;
		var m = ev.data;
		if (!m || m.jsonrpc !== "2.0") return;
		if (m.method === undefined) {
			var p = pending.get(m.id);
			if (!p) return;
			pending.delete(m.id);
			if (m.error) p.reject(m.error); else p.resolve(m.result);
			return;
		}
		var params = m.params || {};
		switch (m.method) {
		case "ui/notifications/tool-input":
			seed(params.arguments || {});
			break;
		case "ui/notifications/tool-result":
			showResult(params);
			break;
		case "ui/notifications/tool-cancelled":
			setStatus("The call was cancelled.");
			break;
		default:
			if (m.id !== undefined) {
				if (m.method === "ui/resource-teardown" || m.method === "ping") {
					send({ jsonrpc: "2.0", id: m.id, result: {} });
				} else {
					send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
				}
			}
		}
	});

	function setStatus(text) { status.textContent = text; }

	// Paths and kinds: "tracks[2].title" has the kind of "tracks[].title".
	function pattern(path) { return path.replace(/\[\d+\]/g, "[]"); }
	function kindOf(path) { return kinds[pattern(path)] || "text"; }
	function splitPath(path) {
		var segs = [], re = /([^.[\]]+)|\[(\d+)\]/g, m;
		while ((m = re.exec(path)) !== null) segs.push(m[1] !== undefined ? m[1] : Number(m[2]));
		return segs;
	}
	function controls() {
		return Array.prototype.filter.call(form.elements, function (el) {
			return el.name && el.name.indexOf("in:") === 0 && !el.disabled && el.type !== "hidden";
		});
	}

	// read turns a control's value into JSON by its kind; undefined when
	// it is empty.
	function read(el, kind) {
		if (el.type === "checkbox") return el.checked;
		var s = el.value;
		if (s.trim() === "") return undefined;
		switch (kind) {
		case "integer":
		case "number":
			var n = Number(s);
			return Number.isFinite(n) ? n : s;
		case "json":
			try { return JSON.parse(s); } catch (e) { return s; }
		case "datetime":
			return /^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(s) ? s + ":00Z" : /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(s) ? s + "Z" : s;
		}
		return s;
	}

	// args returns the arguments in the form, without empty values and
	// empty list rows.
	function args() {
		var out = {};
		controls().forEach(function (el) {
			var path = el.name.slice(3);
			var v = read(el, kindOf(path));
			if (v === undefined) return;
			var segs = splitPath(path), cur = out;
			for (var i = 0; i < segs.length - 1; i++) {
				if (cur[segs[i]] === undefined) cur[segs[i]] = typeof segs[i + 1] === "number" ? [] : {};
				cur = cur[segs[i]];
			}
			cur[segs[segs.length - 1]] = v;
		});
		return compact(out);
	}
	function compact(v) {
		if (Array.isArray(v)) return v.filter(function (x) { return x !== undefined; }).map(compact);
		if (v && typeof v === "object") {
			Object.keys(v).forEach(function (k) { v[k] = compact(v[k]); });
		}
		return v;
	}

	// List rows: add, remove and delete without a server.
	function escapeRE(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }
	function renumber(list, path) {
		var rows = list.querySelectorAll(":scope > ol.rows > li");
		var re = new RegExp("^(in:|f-)?" + escapeRE(path) + "\\[\\d+\\]");
		rows.forEach(function (li, i) {
			li.querySelectorAll("*").forEach(function (el) {
				["name", "id", "for", "aria-describedby", "value"].forEach(function (a) {
					var v = el.getAttribute(a);
					if (v === null || (a === "value" && el.tagName !== "BUTTON")) return;
					var nv = v.split(" ").map(function (w) {
						var pre = w.match(/^(add:|remove:|delete:)/);
						var head = pre ? pre[0] : "";
						return head + w.slice(head.length).replace(re, function (m, p) { return (p || "") + path + "[" + i + "]"; });
					}).join(" ");
					if (nv !== v) el.setAttribute(a, nv);
				});
			});
		});
		var hidden = list.querySelector(":scope > input[type=hidden]");
		if (hidden) hidden.value = String(rows.length);
	}
	function listOf(path) { return document.getElementById("f-" + path); }
	function addRow(path) {
		var list = listOf(path);
		if (!list) return null;
		var ol = list.querySelector(":scope > ol.rows");
		var last = ol.lastElementChild;
		var row = last.cloneNode(true);
		row.querySelectorAll("input, textarea, select").forEach(function (el) {
			if (el.type === "checkbox") el.checked = false;
			else if (el.type !== "hidden") el.value = "";
		});
		row.querySelectorAll("ul.violations").forEach(function (ul) { ul.remove(); });
		ol.appendChild(row);
		ensureDelete(list, path);
		renumber(list, path);
		return row;
	}
	function ensureDelete(list, path) {
		var rows = list.querySelectorAll(":scope > ol.rows > li");
		rows.forEach(function (li, i) {
			var del = li.querySelector(":scope > button.row-remove");
			if (rows.length > 1 && !del) {
				del = document.createElement("button");
				del.type = "submit";
				del.name = "action";
				del.className = "secondary row-remove";
				del.value = "delete:" + path + "[" + i + "]";
				del.textContent = "Remove";
				li.appendChild(del);
			} else if (rows.length === 1 && del) {
				del.remove();
			}
			if (del && rows.length > 1) {
				var legend = list.querySelector(":scope > legend");
				del.setAttribute("aria-label", "Remove row " + (i + 1) + (legend ? " of " + legend.firstChild.textContent.trim() : ""));
			}
		});
	}
	function removeRow(li, list, path) {
		var ol = li.parentNode;
		if (ol.children.length <= 1) {
			li.querySelectorAll("input, textarea, select").forEach(function (el) {
				if (el.type === "checkbox") el.checked = false; else if (el.type !== "hidden") el.value = "";
			});
			return;
		}
		li.remove();
		renumber(list, path);
		ensureDelete(list, path);
	}
	function listPathOf(itemPath) { return itemPath.replace(/\[\d+\]$/, ""); }

	// Seeding: the arguments a model proposed fill the form, and the
	// server checks them without running the tool, so that their
	// violations show on their fields before anyone runs anything.
	var seeds = 0, results = 0;
	function seed(a) {
		clearErrors();
		fill("", a);
		document.getElementById("seeded").hidden = false;
		setStatus("The form holds the agent's proposal.");
		var mine = ++seeds, seen = results;
		request("tools/call", { name: toolName, arguments: a, _meta: { "io.toolapi/validate": true } }).then(function (res) {
			var meta = (res && res._meta) || {};
			// A result that came meanwhile, or a later proposal, says more.
			if (mine !== seeds || seen !== results || meta["io.toolapi/validate"] !== true) return;
			var vs = meta["io.toolapi/violations"] || [];
			if (vs.length) {
				showViolations(vs, "");
				setStatus("The proposal needs fixing before it can run; nothing ran.");
			} else {
				setStatus("The proposal is valid. Check it, then run.");
			}
		}, function () {});
	}
	function fill(prefix, v) {
		var kind = prefix === "" ? "map" : kindOf(prefix);
		if (kind === "list" && Array.isArray(v)) {
			var list = listOf(prefix);
			if (!list) return;
			while (list.querySelectorAll(":scope > ol.rows > li").length < v.length) if (!addRow(prefix)) return;
			v.forEach(function (item, i) { fill(prefix + "[" + i + "]", item); });
			return;
		}
		if (kind === "map" && v && typeof v === "object" && !Array.isArray(v)) {
			Object.keys(v).forEach(function (k) { fill(prefix === "" ? k : prefix + "." + k, v[k]); });
			return;
		}
		var el = form.elements.namedItem("in:" + prefix);
		if (el && el.length !== undefined && !el.tagName) {
			// A checkbox goes with a hidden false of the same name.
			el = Array.prototype.find.call(el, function (x) { return x.type !== "hidden"; });
		}
		if (!el || el.disabled) return;
		if (el.type === "checkbox") { el.checked = v === true; return; }
		if (v === null || v === undefined) { el.value = ""; return; }
		if (kind === "json") { el.value = typeof v === "string" ? v : JSON.stringify(v, null, 2); return; }
		if (kind === "datetime" && typeof v === "string") { el.value = v.replace(/(:\d\d)?(\.\d+)?(Z|[+-]\d\d:\d\d)$/, function (m, s) { return s || ""; }).slice(0, 19); return; }
		el.value = typeof v === "string" ? v : String(v);
	}

	// Violations go next to their fields, and all into the summary.
	function clearErrors() {
		form.querySelectorAll("ul.violations.app").forEach(function (ul) { ul.remove(); });
		form.querySelectorAll(".invalid").forEach(function (el) { el.classList.remove("invalid"); });
		form.querySelectorAll("[aria-invalid]").forEach(function (el) {
			el.removeAttribute("aria-invalid");
			var d = (el.getAttribute("aria-describedby") || "").split(" ").filter(function (w) { return !/-errors$/.test(w); }).join(" ");
			if (d) el.setAttribute("aria-describedby", d); else el.removeAttribute("aria-describedby");
		});
		summary.hidden = true;
		summary.querySelector("ul").textContent = "";
	}
	function placeOn(path, message) {
		var target = document.getElementById(path === "confirm" ? "confirm" : "f-" + path);
		if (!target) return null;
		var box = target.tagName === "FIELDSET" ? target : target.closest(".field");
		if (!box) return null;
		box.classList.add("invalid");
		var errID = target.id + "-errors";
		var ul = document.getElementById(errID);
		if (!ul) {
			ul = document.createElement("ul");
			ul.className = "violations app";
			ul.id = errID;
			var legend = box.tagName === "FIELDSET" ? box.querySelector(":scope > legend") : null;
			if (legend) legend.after(ul); else box.appendChild(ul);
		}
		var li = document.createElement("li");
		li.textContent = message;
		ul.appendChild(li);
		if (target.tagName !== "FIELDSET") {
			target.setAttribute("aria-invalid", "true");
			var d = target.getAttribute("aria-describedby") || "";
			if (d.split(" ").indexOf(errID) < 0) target.setAttribute("aria-describedby", (d ? d + " " : "") + errID);
		}
		return target;
	}
	function labelOf(target, path) {
		if (!target) return path;
		var l = target.tagName === "FIELDSET" ? target.querySelector(":scope > legend") : document.querySelector("label[for='" + CSS.escape(target.id) + "']");
		return l ? l.firstChild.textContent.trim() : path;
	}
	function showViolations(vs, message) {
		clearErrors();
		var ul = summary.querySelector("ul");
		vs.forEach(function (v) {
			var target = v.path ? placeOn(v.path, v.message) : null;
			var li = document.createElement("li");
			if (target) {
				var a = document.createElement("a");
				a.href = "#" + target.id;
				a.textContent = v.path === "confirm" ? v.message : labelOf(target, v.path) + ": " + v.message;
				a.addEventListener("click", function (ev) { ev.preventDefault(); target.focus(); });
				li.appendChild(a);
			} else {
				li.textContent = (v.path ? v.path + ": " : "") + v.message;
			}
			ul.appendChild(li);
		});
		if (!vs.length && message) {
			var li = document.createElement("li");
			li.textContent = message;
			ul.appendChild(li);
		}
		summary.hidden = false;
		summary.focus();
	}

	// Outputs, rendered as the explorer renders them.
	function el(tag, cls, text) {
		var e = document.createElement(tag);
		if (cls) e.className = cls;
		if (text !== undefined) e.textContent = text;
		return e;
	}
	function isEntity(v) { return v && typeof v === "object" && !Array.isArray(v) && "entity_type" in v && "id" in v; }
	function valueView(def, v) {
		if (v === null || v === undefined) return el("span", "muted", "null");
		var type = def ? def.type : "";
		if (def && type === "list" && Array.isArray(v)) return listView(def.items, v);
		if (Array.isArray(v)) return listView(null, v);
		if (typeof v === "boolean") {
			var s = el("span", "mark mark-" + (v ? "yes" : "no"));
			s.appendChild(el("span", "", v ? "✓" : "✗")).setAttribute("aria-hidden", "true");
			s.appendChild(document.createTextNode(" " + (v ? "yes" : "no")));
			return s;
		}
		if (isEntity(v) || (type && type.indexOf("entity") === 0 && typeof v === "object")) {
			var sp = el("span");
			sp.appendChild(el("span", "entity", v.label || String(v.id)));
			sp.appendChild(document.createTextNode(" "));
			sp.appendChild(el("span", "muted", v.entity_type + " " + v.id));
			return sp;
		}
		if (typeof v === "object") return mapView(def, v);
		var text = String(v);
		var media = def ? def.media || "" : "";
		if (typeof v === "string" && /^image\/(png|jpeg|gif|webp)$/.test(media) && /^[A-Za-z0-9+/=\s]+$/.test(text)) {
			var img = el("img", "output-image");
			img.src = "data:" + media + ";base64," + text.replace(/\s/g, "");
			img.alt = def.label || def.name || "image";
			return img;
		}
		if (media === "text/html") return el("code", "source", text);
		if (typeof v === "string" && (type === "datetime_iso8601" || type === "timestamp")) {
			var d = new Date(text);
			if (!isNaN(d)) {
				var t = el("span", "value", def.dateonly ? text : d.toUTCString().replace("GMT", "UTC"));
				t.title = text;
				return t;
			}
		}
		if (typeof v === "string" && type === "uri" && /^https?:\/\//.test(text)) {
			var a = el("a", "", text);
			a.href = text;
			a.rel = "noopener noreferrer nofollow";
			// A sandboxed frame cannot open pages: the host opens the link.
			a.addEventListener("click", function (ev) {
				ev.preventDefault();
				request("ui/open-link", { url: text }).catch(function () {});
			});
			return a;
		}
		return el("span", "value", text);
	}
	function listView(item, items) {
		if (!items.length) return el("span", "muted", "(no items)");
		var props = item && item.properties;
		var allMaps = items.every(function (x) { return x && typeof x === "object" && !Array.isArray(x) && !isEntity(x); });
		if (allMaps) {
			var cols = props ? props.map(function (p) { return p.name; }) : Object.keys(items[0]);
			var wrap = el("div", "scroll");
			wrap.tabIndex = 0;
			wrap.setAttribute("role", "region");
			wrap.setAttribute("aria-label", "Table, scrollable");
			var table = el("table", "data stack labelled");
			var head = table.createTHead().insertRow();
			head.appendChild(el("th", "", "#"));
			cols.forEach(function (c, j) { head.appendChild(el("th", "", props ? (props[j].label || c) : c)); });
			var body = table.createTBody();
			items.forEach(function (row, i) {
				var tr = body.insertRow();
				tr.appendChild(el("td", "muted", String(i + 1)));
				cols.forEach(function (c, j) {
					var td = el("td");
					td.dataset.label = props ? (props[j].label || c) : c;
					td.appendChild(valueView(props ? props[j] : null, row[c]));
					tr.appendChild(td);
				});
			});
			wrap.appendChild(table);
			return wrap;
		}
		var t = el("table", "data");
		var b = t.createTBody();
		items.forEach(function (x, i) {
			var tr = b.insertRow();
			tr.appendChild(el("td", "muted", String(i + 1)));
			var td = el("td");
			td.appendChild(valueView(item, x));
			tr.appendChild(td);
		});
		return t;
	}
	function mapView(def, m) {
		var keys = Object.keys(m);
		if (!keys.length) return el("span", "muted", "(empty)");
		var dl = el("dl", "map");
		var props = (def && def.properties) || [];
		keys.forEach(function (k) {
			var p = props.find(function (x) { return x.name === k; });
			dl.appendChild(el("dt", "", p && p.label ? p.label : k));
			var dd = el("dd");
			dd.appendChild(valueView(p || null, m[k]));
			dl.appendChild(dd);
		});
		return dl;
	}
	function textOf(res) {
		var c = (res.content || []).find(function (x) { return x.type === "text"; });
		return c ? c.text : "";
	}
	function showResult(res) {
		res = res || {};
		results++;
		var meta = res._meta || {};
		var vs = meta["io.toolapi/violations"];
		var msg = textOf(res);
		if (res.isError && Array.isArray(vs)) {
			resultBox.hidden = true;
			showViolations(vs, msg);
			setStatus("The inputs need fixing; nothing ran.");
			return;
		}
		clearErrors();
		var box = document.getElementById("outputs");
		box.textContent = "";
		var p = document.getElementById("result-message");
		resultBox.classList.toggle("ok", !res.isError);
		resultBox.classList.toggle("failed", !!res.isError);
		if (res.isError) {
			p.textContent = "✗ " + (msg || "The run failed.");
		} else {
			var sc = res.structuredContent || {};
			p.textContent = "✓ " + (Object.keys(sc).length || !msg ? main.dataset.label + " completed." : msg);
			outputs.forEach(function (def) {
				if (!(def.name in sc)) return;
				var div = el("div", "output");
				var h = el("h3", "", def.label || def.name);
				div.appendChild(h);
				if (def.description) div.appendChild(el("p", "desc", def.description));
				div.appendChild(valueView(def, sc[def.name]));
				box.appendChild(div);
			});
		}
		resultBox.hidden = false;
		resultBox.focus();
		setStatus(res.isError ? "The run failed." : "The run completed.");
	}

	// Buttons and the run.
	// A host's sandbox may forbid submitting forms, and then no submit
	// event comes: the run button and Enter in a field run the tool
	// themselves.
	form.addEventListener("click", function (ev) {
		if (ev.target.closest("#run")) {
			ev.preventDefault();
			run();
			return;
		}
		var b = ev.target.closest("button[name=action]");
		if (!b || !form.contains(b)) return;
		ev.preventDefault();
		var v = b.value, path;
		if (v.indexOf("add:") === 0) {
			path = v.slice(4);
			var row = addRow(path);
			if (row) { var f = row.querySelector("input, select, textarea"); if (f) f.focus(); }
		} else if (v.indexOf("remove:") === 0) {
			path = v.slice(7);
			var list = listOf(path);
			var last = list && list.querySelector(":scope > ol.rows > li:last-child");
			if (last) removeRow(last, list, path);
		} else if (v.indexOf("delete:") === 0) {
			path = listPathOf(v.slice(7));
			removeRow(b.closest("li"), listOf(path), path);
		}
	});
	form.addEventListener("keydown", function (ev) {
		var t = ev.target;
		if (ev.key === "Enter" && t.tagName === "INPUT" && t.type !== "checkbox" && t.type !== "button" && t.type !== "submit") {
			ev.preventDefault();
			run();
		}
	});
	form.addEventListener("submit", function (ev) {
		ev.preventDefault();
		run();
	});
	function run() {
		if (busy) return;
		clearErrors();
		var confirm = document.getElementById("confirm");
		if (needsConfirm && confirm && !confirm.checked) {
			showViolations([{ path: "confirm", message: "Tick the box to confirm this run: it changes data." }]);
			return;
		}
		busy = true;
		setStatus("Running…");
		request("tools/call", { name: toolName, arguments: args() }).then(function (res) {
			showResult(res);
		}, function (err) {
			resultBox.hidden = false;
			resultBox.classList.remove("ok");
			resultBox.classList.add("failed");
			document.getElementById("outputs").textContent = "";
			document.getElementById("result-message").textContent = "✗ " + ((err && err.message) || "The host could not run the tool.");
			setStatus("The run failed.");
		}).finally(function () {
			busy = false;
			if (confirm) confirm.checked = false;
		});
	}

	// Refined fields: when a value they depend on changes, the page reads
	// itself again with the form's values, and takes the refined fields
	// of that page.
	var refreshes = 0;
	if (main.hasAttribute("data-refines")) {
		form.addEventListener("change", function (ev) {
			var t = ev.target;
			if (!t.name || t.name.indexOf("in:") !== 0 || t.closest("[data-refined]")) return;
			var mine = ++refreshes;
			var uri = main.dataset.address + "?args=" + encodeURIComponent(JSON.stringify(args()));
			request("resources/read", { uri: uri }).then(function (res) {
				if (mine !== refreshes) return;
				var c = res && res.contents && res.contents[0];
				if (!c || typeof c.text !== "string") return;
				var doc = new DOMParser().parseFromString(c.text, "text/html");
				doc.querySelectorAll("#run-form [data-refined]").forEach(function (fresh) {
					var control = fresh.matches("[id^='f-']") ? fresh : fresh.querySelector("[id^='f-']");
					var old = control && document.getElementById(control.id);
					var box = old && (old.matches("[data-refined]") ? old : old.closest("[data-refined]"));
					if (box) box.replaceWith(document.importNode(fresh, true));
				});
				setStatus("The choices were updated from the values above.");
			}, function () {
				setStatus("The choices could not be updated.");
			});
		});
	}

	// The handshake, then the page's size as it changes.
	var size = function () {
		notify("ui/notifications/size-changed", { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight });
	};
	request("ui/initialize", {
		appInfo: { name: "toolapi", version: "1" },
		appCapabilities: { availableDisplayModes: ["inline"] },
		protocolVersion: "2026-01-26"
	}).then(function () {
		notify("ui/notifications/initialized", {});
		size();
		if (window.ResizeObserver) new ResizeObserver(size).observe(document.body);
	}, function () {
		setStatus("The host did not answer; the form cannot run.");
	});
})();
