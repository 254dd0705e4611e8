/* fray replay viewer, part 3 of 3: panels, controls, the URL fragment and the test hooks.
   Runs no rules: everything shown comes from the data in #fray-data. */
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("fray-data").textContent);
  const M = frayModel(D), map = frayMap(document.getElementById("map"), M);
  const P = D.look.palette, TEAMS = D.look.teams;
  const W = M.W, U = M.U, E = M.E, unitAt = M.unitAt, status = M.status, down = M.down;
  const cells = M.cells, zonesAt = M.zonesAt, orderAt = M.orderAt, turnStart = M.turnStart;
  const roundStart = M.roundStart, oddsEvents = M.oddsEvents, FLAG = M.FLAG;
  const $ = function (id) { return document.getElementById(id); };

  // ---------------------------------------------------------------- panels
  const log = $("log"), logItems = [];
  D.text.forEach(function (line, e) {
    const li = document.createElement("li");
    li.textContent = line;
    li.dataset.index = e;
    const type = D.typeNames[D.types[e]];
    if (type === "Reasoned") li.className = "reason";
    if (type === "RoundStarted") li.className = "round";
    li.addEventListener("click", function () { go(e); });
    log.appendChild(li);
    logItems.push(li);
  });
  const tbody = $("units").tBodies[0], unitRows = [];
  D.units.forEach(function (info, slot) {
    const tr = document.createElement("tr");
    tr.dataset.unit = info.id;
    tr.innerHTML = "<td><b class='swatch'></b></td><td class='name'></td>" +
      "<td class='hp'></td><td class='pos'></td><td class='status'></td>";
    tr.querySelector(".swatch").style.background = TEAMS[info.team % TEAMS.length];
    tr.querySelector(".swatch").textContent = info.initials;   // as on the map
    tr.querySelector(".name").textContent = info.id;
    tr.addEventListener("click", function () { select(slot); });
    tbody.appendChild(tr);
    unitRows.push(tr);
  });
  const legend = [["floor", P.floor], ["wall", P.wall], ["closed door", P.door_closed],
    ["open door", P.door_open], ["difficult", P.difficult], ["dark", P.dark], ["drop", P.drop],
    ["acting unit", P.decider], ["threatened", P.threat], ["reachable", P.reach],
    ["move path", P.path], ["reaction (FA/P/D/!)", P.reaction], ["bleeding", P.bleeding],
    ["item on the ground: *", P.floor]];
  D.teams.forEach(function (t, i) { legend.splice(i, 0, ["team " + t, TEAMS[i % TEAMS.length]]); });
  legend.forEach(function (item) {
    const li = document.createElement("li");
    li.innerHTML = "<span></span>";
    li.firstChild.style.background = item[1];
    li.appendChild(document.createTextNode(item[0]));
    $("legend").appendChild(li);
  });
  const roundSelect = $("round-select");
  Object.keys(roundStart).forEach(function (r) {
    const opt = document.createElement("option");
    opt.value = r; opt.textContent = r;
    roundSelect.appendChild(opt);
  });
  $("title").textContent = "fray replay: " + D.scenario;
  $("meta").textContent = "seed " + D.seed + " · " + Object.keys(D.agents).map(function (t) {
    return t + ": " + D.agents[t];
  }).join(", ") + " · " + (D.result.rounds === undefined ? "no result recorded" :
    "result: " + (D.result.winner || "draw") + " after " + D.result.rounds + " rounds") +
    ", " + E + " events" +
    (D.stopped ? " · re-simulation stopped: " + D.stopped : "");
  $("scrub").max = E - 1;

  function updateUnits(e) {
    const acting = D.owner[e];
    D.units.forEach(function (info, slot) {
      const u = unitAt(e, slot), tr = unitRows[slot];
      tr.querySelector(".hp").textContent = "HP " + u.hp + "/" + info.maxHp;
      tr.querySelector(".pos").textContent = "(" + u.x + ", " + u.y + ")";
      tr.querySelector(".status").textContent = status(u.flags);
      tr.dataset.x = u.x; tr.dataset.y = u.y; tr.dataset.hp = u.hp;
      tr.classList.toggle("down", down(u.flags));
      tr.classList.toggle("acting", slot === acting);
      tr.classList.toggle("selected", slot === selected);
    });
  }
  function updateOrder(e) {
    const list = $("order");
    list.textContent = "";
    orderAt[D.snapshot[e]].forEach(function (slot) {
      const li = document.createElement("li"), u = unitAt(e, slot);
      li.textContent = D.units[slot].id;
      li.dataset.unit = D.units[slot].id;
      if (slot === D.owner[e]) li.className = "acting";
      else if (down(u.flags)) li.className = "down";
      list.appendChild(li);
    });
  }
  function squareList(list) {
    return list.map(function (c) { return "(" + (c % W) + ", " + Math.floor(c / W) + ")"; }).join(" ");
  }
  function updateSelected(e) {
    const box = $("selected");
    if (selected < 0) { box.textContent = "Click a unit on the map or in the table."; return; }
    const info = D.units[selected], u = unitAt(e, selected), z = zonesAt[D.snapshot[e]][selected];
    const threat = cells(z[0]), reach = cells(z[1]);
    box.innerHTML = "<b class='id'></b> <span class='creature'></span><br>" +
      "<span class='hp'></span> at <span class='pos'></span> <span class='status'></span><br>" +
      "threatens <span id='threat-count'></span> squares: <span id='threat-list'></span><br>" +
      "could end a full move on <span id='reach-count'></span> squares";
    box.dataset.unit = info.id;
    box.querySelector(".id").textContent = info.id;
    box.querySelector(".creature").textContent = "(" + info.creature + ", " + D.teams[info.team] + ")";
    box.querySelector(".hp").textContent = "HP " + u.hp + "/" + info.maxHp;
    box.querySelector(".pos").textContent = "(" + u.x + ", " + u.y + ")";
    box.querySelector(".status").textContent = status(u.flags);
    $("threat-count").textContent = threat.length;
    $("threat-list").textContent = squareList(threat);
    $("reach-count").textContent = reach.length;
  }
  function pct(p) { return (100 * p).toFixed(p > 0 && p < 0.001 ? 2 : 1) + "%"; }
  function updateOdds(e) {
    const box = $("odds");
    if (!D.oddsAvailable) {
      box.textContent = "rules.odds was not available when this page was built: no odds.";
      return;
    }
    let shown = -1;
    for (let i = oddsEvents.length - 1; i >= 0; i--) {
      if (oddsEvents[i] <= e) { if (oddsEvents[i] >= turnStart[e]) shown = oddsEvents[i]; break; }
    }
    box.dataset.event = shown;
    if (shown < 0) { box.textContent = "No attack yet this turn."; return; }
    const o = D.odds[shown];
    const line = D.text[shown], level = o.rolled;
    let html = "<p class='attack'></p><table><tr><th>roll</th><th>chance</th><th>exact</th></tr>";
    ["CRITICAL", "SPECIAL", "SUCCESS", "FAILURE", "FUMBLE"].forEach(function (name) {
      const v = o.levels[name];
      html += "<tr" + (name === level ? " class='used'" : "") + "><td>" + name.toLowerCase() +
        "</td><td>" + pct(v[0]) + "</td><td>" + v[1] + "</td></tr>";
    });
    html += "</table><table><tr><th>defence</th><th>wounds</th><th>mean dmg</th>" +
      "<th>drops</th><th>kills</th></tr>";
    Object.keys(o.defences).forEach(function (name) {
      const v = o.defences[name];
      html += "<tr" + (name === o.used ? " class='used'" : "") + "><td>" + name + "</td><td>" +
        pct(v[0]) + "</td><td>" + v[1].toFixed(2) + "</td><td title='" + v[4] + "'>" + pct(v[2]) +
        "</td><td>" + pct(v[3]) + "</td></tr>";
    });
    box.innerHTML = html + "</table>";
    box.querySelector(".attack").textContent = line.replace(/^\[r\d+\] /, "") +
      " (attack chance " + o.chance + "; defence used: " + (o.used || "none") + ")";
  }

  // ---------------------------------------------------------------- position
  let current = 0, previous = 0, selected = -1, timer = null;
  function clamp(e) { return Math.max(0, Math.min(E - 1, e | 0)); }
  function go(e) {
    current = clamp(e);
    const body = document.body;
    body.dataset.event = current;
    $("event-index").textContent = "Event " + current + " / " + (E - 1);
    $("event-index").dataset.index = current;
    $("round").textContent = "Round " + D.round[current];
    $("round").dataset.round = D.round[current];
    const owner = D.owner[current];
    $("acting").textContent = owner >= 0 ? "acting: " + D.units[owner].id : "";
    $("current-line").textContent = D.text[current];
    logItems[previous].classList.remove("current");
    previous = current;
    const li = logItems[current];
    li.classList.add("current");
    roundSelect.value = D.round[current];
    $("scrub").value = current;
    updateUnits(current);
    updateOrder(current);
    updateSelected(current);
    updateOdds(current);
    if (li.offsetTop < log.scrollTop ||
        li.offsetTop + li.offsetHeight > log.scrollTop + log.clientHeight) {
      log.scrollTop = li.offsetTop - log.clientHeight / 2;   // after the panels: they move it
    }
    map.draw(current, selected);
    const hash = "#e=" + current;
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }
  function select(slot) { selected = slot; go(current); }
  function fromHash() {
    const m = /e=(\d+)/.exec(location.hash);
    return m ? Number(m[1]) : 0;
  }
  function setPlaying(on) {
    if (timer) { clearInterval(timer); timer = null; }
    $("play").textContent = on ? "Pause" : "Play";
    if (on) {
      timer = setInterval(function () {
        if (current >= E - 1) setPlaying(false); else go(current + 1);
      }, 1000 / Number($("speed").value));
    }
  }
  function speedText() { $("speed-text").textContent = $("speed").value + " events/s"; }
  $("first").addEventListener("click", function () { go(0); });
  $("back").addEventListener("click", function () { go(current - 1); });
  $("forward").addEventListener("click", function () { go(current + 1); });
  $("last").addEventListener("click", function () { go(E - 1); });
  $("play").addEventListener("click", function () { setPlaying(!timer); });
  $("speed").addEventListener("input", function () { speedText(); if (timer) setPlaying(true); });
  $("scrub").addEventListener("input", function () { go(Number($("scrub").value)); });
  roundSelect.addEventListener("change", function () { go(roundStart[roundSelect.value]); });
  window.addEventListener("hashchange", function () { go(fromHash()); });
  document.addEventListener("keydown", function (ev) {
    if (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
    const keys = {ArrowRight: 1, ArrowLeft: -1};
    if (ev.key in keys) go(current + keys[ev.key]);
    else if (ev.key === "Home") go(0);
    else if (ev.key === "End") go(E - 1);
    else if (ev.key === " ") setPlaying(!timer);
    else return;
    ev.preventDefault();
  });
  const canvas = $("map");
  canvas.addEventListener("click", function (ev) {
    const rect = canvas.getBoundingClientRect();
    const x = Math.floor((ev.clientX - rect.left) / map.cell), y = Math.floor((ev.clientY - rect.top) / map.cell);
    let hit = -1;
    for (let s = 0; s < U; s++) {                 // prefer units in action, riders over mounts
      const u = unitAt(current, s);
      if (u.x !== x || u.y !== y) continue;
      const score = (down(u.flags) ? 0 : 2) + ((u.flags & FLAG.riding) ? 1 : 0);
      const best = hit < 0 ? -1 : (down(unitAt(current, hit).flags) ? 0 : 2) +
        ((unitAt(current, hit).flags & FLAG.riding) ? 1 : 0);
      if (score > best) hit = s;
    }
    select(hit);
  });

  // ---------------------------------------------------------------- layout
  /** Size the map's squares to the window (viewer.css lays the page out): the largest
      that keep the board (map, controls, current line) in the window's height and leave
      the panels (aside) their min-width. Measured again, as the controls may wrap. Then
      the log goes below the board if that leaves it its min-height (a wide map), else
      below the selected unit and the odds. */
  function fit() {
    const main = document.querySelector("main"), board = $("board"), last = $("current-line");
    const logPanel = $("log-panel"), side = document.querySelectorAll(".side-column")[1];
    const gap = parseFloat(getComputedStyle(main).columnGap) || 0;
    const sideMin = parseFloat(getComputedStyle(document.querySelector("aside")).minWidth) || 0;
    const logMin = parseFloat(getComputedStyle(logPanel).minHeight) || 0;
    if (logPanel.parentNode !== side) side.appendChild(logPanel);
    for (let pass = 0; pass < 3; pass++) {
      const below = last.getBoundingClientRect().bottom - canvas.getBoundingClientRect().bottom;
      const width = main.clientWidth - gap - sideMin, height = main.clientHeight - below;
      const before = map.cell;
      map.resize(Math.min(width / M.W, height / M.H));
      if (map.cell === before) break;
    }
    const room = main.getBoundingClientRect().top + main.clientHeight - last.getBoundingClientRect().bottom;
    if (room >= logMin + gap) board.appendChild(logPanel);
  }
  window.addEventListener("resize", function () { fit(); go(current); });

  // ---------------------------------------------------------------- test hooks
  window.fray = {
    data: D,
    get cell() { return map.cell; },
    go: go,
    select: function (id) { select(D.units.findIndex(function (u) { return u.id === id; })); },
    /** What the page shows now, as plain data (the tests also read the DOM and pixels). */
    state: function () {
      const snap = D.snapshot[current];
      return {
        event: current, round: D.round[current], line: D.text[current],
        owner: D.owner[current] >= 0 ? D.units[D.owner[current]].id : null,
        selected: selected >= 0 ? D.units[selected].id : null,
        units: D.units.map(function (info, slot) {
          const u = unitAt(current, slot);
          return {id: info.id, x: u.x, y: u.y, hp: u.hp, status: status(u.flags),
                  threat: cells(zonesAt[snap][slot][0]).map(function (c) { return [c % W, Math.floor(c / W)]; }),
                  reach: cells(zonesAt[snap][slot][1]).length};
        }),
      };
    },
    /** Page coordinates of the centre of square (x, y) on the canvas. */
    squareCentre: function (x, y) {
      const rect = canvas.getBoundingClientRect();
      return {x: rect.left + (x + 0.5) * map.cell, y: rect.top + (y + 0.5) * map.cell};
    },
  };
  speedText();
  fit();
  go(fromHash());
  document.body.dataset.ready = "1";
})();
