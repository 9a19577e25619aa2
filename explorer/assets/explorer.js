// The Tool Explorer works without this script; with it, choices that
// depend on other inputs refresh as soon as those inputs change, and
// entity fields suggest entities while a person types.
(function () {
	"use strict";
	// Copy buttons, shown only where the script runs.
	document.querySelectorAll("button[data-copy]").forEach(function (b) {
		b.hidden = false;
		b.addEventListener("click", function () {
			var src = document.getElementById(b.getAttribute("data-copy"));
			if (src && navigator.clipboard) {
				navigator.clipboard.writeText(src.textContent).then(function () { b.textContent = "Copied"; });
			}
		});
	});
	// A task's page asks how the task stands every poll interval and
	// reloads when it has changed, until the task ends. Without the
	// script, the page reloads itself or offers a Refresh link.
	var watched = document.querySelector("[data-task-poll]");
	if (watched && !watched.hasAttribute("data-task-finished") && window.fetch) {
		var every = Math.max(parseInt(watched.getAttribute("data-task-interval"), 10) || 1000, 100);
		var poll = function () {
			fetch(watched.getAttribute("data-task-poll"), { credentials: "same-origin", headers: { "Accept": "application/json" } })
				.then(function (resp) { return resp.ok ? resp.json() : null; })
				.then(function (st) {
					if (st && st.version && st.version !== watched.getAttribute("data-task-version")) {
						window.location.reload();
						return;
					}
					setTimeout(poll, every);
				}, function () { setTimeout(poll, every * 4); });
		};
		setTimeout(poll, every);
	}

	var form = document.getElementById("run-form");
	if (!form) {
		return;
	}

	// A run happens once: while it is under way the buttons that would
	// submit the form again are disabled (the server also runs each form
	// only once). They come back when the page is shown from the history.
	form.addEventListener("submit", function (ev) {
		var b = ev.submitter;
		if (!b || (b.value !== "run" && b.value.indexOf("preset-run:") !== 0)) {
			return;
		}
		var busy = document.getElementById("run");
		// Disabled after the submission has taken the button's value.
		setTimeout(function () {
			form.querySelectorAll("button[type=submit]:not(:disabled)").forEach(function (x) {
				x.disabled = true;
				x.setAttribute("data-busy", "");
			});
			form.setAttribute("aria-busy", "true");
			if (busy) {
				busy.textContent = "Running…";
			}
		}, 0);
	});
	window.addEventListener("pageshow", function (ev) {
		if (ev.persisted) {
			form.querySelectorAll("button[data-busy]").forEach(function (x) {
				x.disabled = false;
				x.removeAttribute("data-busy");
			});
			form.removeAttribute("aria-busy");
			var busy = document.getElementById("run");
			if (busy) {
				busy.textContent = "Run";
			}
		}
	});

	// Give the focus back where the last action left it, unless the page
	// put it somewhere already (a result, an error summary).
	var target = form.getAttribute("data-focus");
	if (target && (!document.activeElement || document.activeElement === document.body)) {
		var el = document.getElementById(target);
		if (el && !el.matches("input, select, textarea, button, [tabindex]")) {
			el = el.querySelector("input:not([type=hidden]), select, textarea, button");
		}
		if (el) {
			el.focus();
		}
	}

	// Refresh refined inputs once another input has changed and the person
	// has left it: never while they are still choosing (a select changes
	// with each arrow key).
	var refresh = document.getElementById("refresh");
	if (form.hasAttribute("data-refines") && refresh) {
		var changed = null;
		form.addEventListener("change", function (ev) {
			var t = ev.target;
			if (!t.name || t.name.indexOf("in:") !== 0 || t.closest("[data-refined]")) {
				return;
			}
			changed = t;
		});
		form.addEventListener("focusout", function (ev) {
			if (!changed || ev.target !== changed) {
				return;
			}
			changed = null;
			var next = ev.relatedTarget;
			form.elements.focus.value = next && next.id ? next.id : "";
			refresh.click();
		});
	}

	// Suggest entities by label while typing.
	var timers = new WeakMap();
	form.addEventListener("input", function (ev) {
		var t = ev.target;
		var url = t.getAttribute && t.getAttribute("data-entities");
		var listID = t.getAttribute && t.getAttribute("list");
		if (!url || !listID) {
			return;
		}
		clearTimeout(timers.get(t));
		timers.set(t, setTimeout(function () {
			fetch(url + "?q=" + encodeURIComponent(t.value), { credentials: "same-origin" })
				.then(function (r) { return r.ok ? r.json() : null; })
				.then(function (data) {
					if (!data || !data.entities) {
						return;
					}
					var list = document.getElementById(listID);
					if (!list) {
						return;
					}
					while (list.firstChild) {
						list.removeChild(list.firstChild);
					}
					data.entities.forEach(function (e) {
						var o = document.createElement("option");
						o.value = e.id;
						o.textContent = e.label;
						list.appendChild(o);
					});
				})
				.catch(function () {});
		}, 200));
	});
})();
