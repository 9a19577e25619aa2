// The Tool Explorer works without this script; with it, choices that
// depend on other inputs refresh as soon as those inputs change, and
// entity fields suggest entities while a person types.
(function () {
	"use strict";
	var form = document.getElementById("run-form");
	if (!form) {
		return;
	}

	// Refresh refined inputs when another input changes.
	var refresh = document.getElementById("refresh");
	if (form.hasAttribute("data-refines") && refresh) {
		form.addEventListener("change", function (ev) {
			var t = ev.target;
			if (!t.name || t.name.indexOf("in:") !== 0 || t.closest("[data-refined]")) {
				return;
			}
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
