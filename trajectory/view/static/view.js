// traj view: the time-travel slider (and nothing else needs script; every page works without it).
// Live, the slider asks the server for the state panel at a seq; in a static copy the panels of
// every seq are in the page (<template data-seq>) and the slider swaps them in.
(function () {
  "use strict";
  function ready(fn) {
    if (document.readyState !== "loading") fn(); else document.addEventListener("DOMContentLoaded", fn);
  }
  ready(function () {
    var slider = document.getElementById("at");
    var panel = document.getElementById("state");
    if (!slider || !panel) return;
    var label = document.getElementById("at-label");
    var stateUrl = slider.getAttribute("data-state-url");
    var staticStates = document.getElementById("static-states");
    var pending = 0;

    // A static copy stores the world state once and each step's changes ([path, value] sets,
    // [path] removes; see changes.world_patch): the state at a seq is the first one with the
    // changes up to it applied, forward from the last state shown (from the start when going back).
    var worldNode = document.getElementById("world-steps");
    var steps = worldNode ? JSON.parse(worldNode.textContent) : null;
    var world = null, worldSeq = -1, nextPatch = 0;

    function copy(v) { return v === undefined ? null : JSON.parse(JSON.stringify(v)); }

    function applyOps(doc, ops) {
      for (var i = 0; i < ops.length; i++) {
        var path = ops[i][0];
        if (path.length === 0) { doc = ops[i].length === 2 ? copy(ops[i][1]) : null; continue; }
        var parent = doc;
        for (var k = 0; k < path.length - 1; k++) parent = parent[path[k]];
        var last = path[path.length - 1];
        if (ops[i].length === 2) parent[last] = copy(ops[i][1]);
        else if (Array.isArray(parent)) parent.splice(last, 1);
        else delete parent[last];
      }
      return doc;
    }

    function worldAt(seq) {
      if (seq < worldSeq || world === null && worldSeq < 0) {
        world = copy(steps.initial); worldSeq = 0; nextPatch = 0;
      }
      var patches = steps.patches;
      while (nextPatch < patches.length && patches[nextPatch][0] <= seq) {
        world = applyOps(world, patches[nextPatch][1]);
        nextPatch++;
      }
      worldSeq = seq;
      return world;
    }

    function fillStatic(seq) {
      var pre = panel.querySelector("pre[data-world]");
      if (pre && steps) pre.textContent = JSON.stringify(worldAt(seq), null, 1);
      var slot = panel.querySelector("[data-screen]");
      if (slot) {
        var shot = staticStates.querySelector('template[data-screen-seq="' + slot.getAttribute("data-screen") + '"]');
        if (shot) slot.innerHTML = shot.innerHTML;
      }
    }

    function markTimeline(seq) {
      var rows = document.querySelectorAll("#timeline tr[data-seq]");
      for (var i = 0; i < rows.length; i++) {
        rows[i].classList.toggle("current", rows[i].getAttribute("data-seq") === String(seq));
      }
    }

    function show(seq) {
      seq = Math.max(0, Math.min(Number(slider.max), Number(seq)));
      slider.value = String(seq);
      if (label) label.textContent = String(seq);
      markTimeline(seq);
      if (staticStates) {
        var tpl = staticStates.querySelector('template[data-seq="' + seq + '"]');
        if (tpl) {
          panel.innerHTML = tpl.innerHTML;
          fillStatic(seq);
        }
        if (history.replaceState) history.replaceState(null, "", "#at=" + seq);
        return;
      }
      var mine = ++pending;
      panel.setAttribute("aria-busy", "true");
      fetch(stateUrl + "?at=" + seq, { headers: { "Accept": "text/html" } })
        .then(function (r) { return r.text(); })
        .then(function (html) {
          if (mine !== pending) return;  // a later move of the slider wins
          panel.innerHTML = html;
          panel.removeAttribute("aria-busy");
          var url = new URL(window.location.href);
          url.searchParams.set("at", String(seq));
          if (history.replaceState) history.replaceState(null, "", url.toString());
        })
        .catch(function () { panel.removeAttribute("aria-busy"); });
    }

    slider.addEventListener("input", function () { if (label) label.textContent = slider.value; });
    slider.addEventListener("change", function () { show(slider.value); });
    var prev = document.getElementById("prev"), next = document.getElementById("next");
    if (prev) prev.addEventListener("click", function () { show(Number(slider.value) - 1); });
    if (next) next.addEventListener("click", function () { show(Number(slider.value) + 1); });
    if (staticStates) {
      var m = /#at=(\d+)/.exec(window.location.hash);
      if (m) show(m[1]);
      window.addEventListener("hashchange", function () {
        var h = /#at=(\d+)/.exec(window.location.hash);
        if (h) { show(h[1]); document.getElementById("time-travel").scrollIntoView(); }
      });
    }
  });
})();
