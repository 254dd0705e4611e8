/* fray replay viewer. Reads the JSON in #fray-data (see experiments/viewer/data.py for the
   format), rebuilds the state at every event index and draws it; runs no rules. */
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("fray-data").textContent);
  const P = D.look.palette, G = D.look.geometry, TEAMS = D.look.teams;
  const FLAG = {};
  D.look.flags.forEach(function (name, i) { FLAG[name] = 1 << i; });
  const W = D.map.width, H = D.map.height, U = D.units.length, E = D.text.length;
  const $ = function (id) { return document.getElementById(id); };

  // ---------------------------------------------------------------- decode
  const units = new Int32Array(E * U * 4);          // [x, y, hp, flags] per event, unit
  const row = new Int32Array(U * 4);
  for (let e = 0; e < E; e++) {
    D.unitDelta[e].forEach(function (d) { row.set(d.slice(1, 5), d[0] * 4); });
    units.set(row, e * U * 4);
  }
  const doorsAt = [];                               // per event: {cell: open}
  let doors = {};
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
    const glyph = D.map.rows[y][x];
    if (glyph === "+" || glyph === "'") doors[y * W + x] = glyph === "'";
  }
  for (let e = 0; e < E; e++) {
    if (D.doorDelta[e].length) {
      doors = Object.assign({}, doors);
      D.doorDelta[e].forEach(function (d) { doors[d[0]] = !!d[1]; });
    }
    doorsAt.push(doors);
  }
  const zonesAt = [], orderAt = [];                 // per snapshot
  let zones = [], order = [];
  for (let i = 0; i < U; i++) zones.push([-1, -1]);
  D.snapshots.forEach(function (s) {
    if (s.zones.length) {
      zones = zones.slice();
      s.zones.forEach(function (z) { zones[z[0]] = [z[1], z[2]]; });
    }
    if (s.order) order = s.order;
    zonesAt.push(zones);
    orderAt.push(order);
  });
  const setCache = {};
  function cells(index) {                           // run-length set -> [cell, ...]
    if (index < 0) return [];
    if (!setCache[index]) {
      const run = D.sets[index], out = [];
      let end = 0;
      for (let i = 0; i < run.length; i += 2) {
        const start = end + run[i];
        for (let c = start; c < start + run[i + 1]; c++) out.push(c);
        end = start + run[i + 1];
      }
      setCache[index] = out;
    }
    return setCache[index];
  }
  const turnStart = new Int32Array(E);              // first event of the turn shown
  const roundStart = {};
  for (let e = 0, t = 0; e < E; e++) {
    const type = D.typeNames[D.types[e]];
    if (type === "TurnStarted" || type === "RoundStarted") t = e;
    turnStart[e] = t;
    if (!(D.round[e] in roundStart)) roundStart[D.round[e]] = e;
  }
  const oddsEvents = Object.keys(D.odds).map(Number).sort(function (a, b) { return a - b; });

  function unitAt(e, slot) {
    const o = (e * U + slot) * 4;
    return {x: units[o], y: units[o + 1], hp: units[o + 2], flags: units[o + 3]};
  }
  function status(flags) {
    const out = [];
    if (flags & FLAG.dead) out.push("dead");
    else if (flags & FLAG.out) out.push("out of action");
    if (flags & FLAG.prone) out.push("prone");
    if (flags & FLAG.bleeding) out.push("bleeding");
    if (flags & FLAG.riding) out.push("mounted");
    if (flags & FLAG.ridden) out.push("ridden");
    if (flags & FLAG.grappled) out.push("grappled");
    return out.join(", ");
  }
  const down = function (flags) { return (flags & (FLAG.out | FLAG.dead)) !== 0; };

  // ---------------------------------------------------------------- drawing
  const canvas = $("map"), ctx = canvas.getContext("2d");
  const CELL = Math.max(14, Math.min(48, Math.floor(Math.min(900 / W, 820 / H))));
  const ratio = window.devicePixelRatio || 1;
  canvas.width = W * CELL * ratio;
  canvas.height = H * CELL * ratio;
  canvas.style.width = W * CELL + "px";
  canvas.style.height = H * CELL + "px";
  canvas.dataset.cell = CELL;
  ctx.scale(ratio, ratio);

  function terrain(cell, doorState) {
    const glyph = D.map.rows[Math.floor(cell / W)][cell % W];
    if (glyph === "#") return P.wall;
    if (cell in doorState) return doorState[cell] ? P.door_open : P.door_closed;
    if (glyph === "_" || (glyph >= "1" && glyph <= "9")) return P.drop;
    if (glyph === "~") return P.difficult;
    if (glyph === ":" || glyph === ";") return P.dark;
    return P.floor;
  }
  function drawMap(e) {
    const doorState = doorsAt[e], snap = D.snapshots[D.snapshot[e]];
    const lit = {};
    cells(snap.lit).forEach(function (c) { lit[c] = true; });
    ctx.font = "bold " + Math.round(CELL * 0.4) + "px sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
      const cell = y * W + x, glyph = D.map.rows[y][x];
      let colour = terrain(cell, doorState);
      if (lit[cell]) colour = glyph === ";" ? P.difficult : P.floor;   // a torch lights it
      ctx.fillStyle = colour;
      ctx.fillRect(x * CELL, y * CELL, CELL, CELL);
      if (colour !== P.wall) {
        ctx.fillStyle = P.gridline;
        ctx.fillRect(x * CELL, (y + 1) * CELL - 1, CELL, 1);
        ctx.fillRect((x + 1) * CELL - 1, y * CELL, 1, CELL);
      }
      if (glyph === ";" && !lit[cell]) {            // dark and difficult: hatch
        ctx.fillStyle = P.difficult;
        ctx.fillRect(x * CELL + CELL * 0.3, y * CELL + CELL * 0.3, CELL * 0.4, CELL * 0.4);
      }
      if (colour === P.drop) {                      // a drop: its depth in feet
        ctx.fillStyle = P.floor;
        const depth = glyph === "_" ? D.map.dropDepth : Number(glyph) * 10;
        ctx.fillText(String(depth), (x + 0.5) * CELL, (y + 0.5) * CELL);
      }
    }
    ctx.fillStyle = P.wall;                         // items lying on the ground
    cells(snap.ground).forEach(function (c) {
      const p = centre(c);
      ctx.fillText("*", p[0] + CELL * 0.3, p[1] + CELL * 0.3);
    });
  }
  function centre(cell) { return [(cell % W + 0.5) * CELL, (Math.floor(cell / W) + 0.5) * CELL]; }
  function drawReach(slot, snap) {
    ctx.globalAlpha = G.reach_alpha;
    ctx.fillStyle = P.reach;
    cells(zonesAt[snap][slot][1]).forEach(function (c) {
      ctx.fillRect((c % W) * CELL, Math.floor(c / W) * CELL, CELL - 1, CELL - 1);
    });
    ctx.globalAlpha = 1;
  }
  function drawThreat(slot, snap) {
    const lw = Math.max(2, Math.round(CELL * G.threat_width));
    ctx.strokeStyle = P.threat;
    ctx.lineWidth = lw;
    cells(zonesAt[snap][slot][0]).forEach(function (c) {
      ctx.strokeRect((c % W) * CELL + lw / 2, Math.floor(c / W) * CELL + lw / 2,
                     CELL - 1 - lw, CELL - 1 - lw);
    });
  }
  function drawPaths(e) {
    ctx.strokeStyle = P.path;
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    for (let i = turnStart[e]; i <= e; i++) {
      const path = D.paths[i];
      if (!path || path.length < 2) continue;
      ctx.lineWidth = i === e ? Math.max(3, CELL * 0.16) : Math.max(2, CELL * 0.08);
      ctx.beginPath();
      path.forEach(function (c, k) {
        const p = centre(c);
        if (k === 0) ctx.moveTo(p[0], p[1]); else ctx.lineTo(p[0], p[1]);
      });
      ctx.stroke();
      const start = centre(path[0]);
      ctx.fillStyle = P.path;
      ctx.beginPath();
      ctx.arc(start[0], start[1], CELL * 0.12, 0, 2 * Math.PI);
      ctx.fill();
    }
  }
  const MARK_TEXT = {free: "FA", parry: "P", dodge: "D", provoked: "!", declined: "-"};
  function drawMarks(e) {
    ctx.font = "bold " + Math.round(CELL * 0.3) + "px sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (let i = turnStart[e]; i <= e; i++) {
      const m = D.marks[i];
      if (!m) continue;
      const p = centre(m[1]);
      if (m[0] === "dodge" && m[2] >= 0) {
        const q = centre(m[2]);
        ctx.strokeStyle = P.reaction;
        ctx.lineWidth = 2;
        ctx.beginPath(); ctx.moveTo(p[0], p[1]); ctx.lineTo(q[0], q[1]); ctx.stroke();
      }
      const bx = p[0] - CELL * 0.5 + 1, by = p[1] + CELL * 0.5 - CELL * 0.36;
      ctx.fillStyle = P.reaction;
      ctx.fillRect(bx, by, CELL * 0.42, CELL * 0.34);
      ctx.fillStyle = "#ffffff";
      ctx.fillText(MARK_TEXT[m[0]], bx + CELL * 0.21, by + CELL * 0.18);
    }
  }
  function drawUnit(e, slot, acting) {
    const u = unitAt(e, slot), info = D.units[slot];
    const x0 = u.x * CELL, y0 = u.y * CELL, cx = x0 + CELL / 2, cy = y0 + CELL / 2;
    const colour = down(u.flags) ? P.down : TEAMS[info.team % TEAMS.length];
    if (acting) {
      ctx.strokeStyle = P.decider;
      ctx.lineWidth = Math.max(2, Math.floor(CELL / 12));
      ctx.strokeRect(x0 + 1, y0 + 1, CELL - 3, CELL - 3);
    }
    let r = CELL * G.unit_radius;
    if (u.flags & FLAG.dead) { cross(cx, cy, r, Math.max(1, CELL / 10)); return; }
    const mount = (u.flags & FLAG.ridden) && !down(u.flags);
    ctx.fillStyle = colour;
    if (mount) {
      const inset = CELL * G.mount_inset;
      roundRect(x0 + inset, y0 + inset, CELL - 1 - 2 * inset, CELL - 1 - 2 * inset, CELL / 5);
      ctx.fill();
    } else {
      if (u.flags & FLAG.riding) r = CELL * G.rider_radius;
      const prone = (u.flags & FLAG.prone) !== 0, squash = prone ? 0.55 : 1;
      const top = cy - r * squash + (prone ? r * (1 - squash) : 0);
      ctx.beginPath();
      ctx.ellipse(cx, top + r * squash, r, r * squash, 0, 0, 2 * Math.PI);
      ctx.fill();
      if (u.flags & FLAG.riding) {                  // a rider: ringed, on its mount
        ctx.strokeStyle = P.initials;
        ctx.lineWidth = Math.max(1, CELL / 16);
        ctx.stroke();
      }
      ctx.fillStyle = P.initials;
      ctx.font = "bold " + Math.max(6, Math.round(CELL * G.font)) + "px sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(info.initials, cx, cy + (prone ? r * 0.3 : 0));
    }
    if (down(u.flags)) cross(cx, cy, r, Math.max(1, CELL / 12));
    hpBar(u, info, x0, y0 + (mount ? CELL * (1 - G.hp_bar_height) - 1 : 0));
    if (u.flags & FLAG.bleeding) {
      const mr = CELL * G.mark_radius;
      ctx.fillStyle = P.bleeding;
      ctx.beginPath();
      ctx.arc(x0 + CELL - 2 * mr, y0 + CELL * G.hp_bar_height + 2 * mr, mr, 0, 2 * Math.PI);
      ctx.fill();
    }
  }
  function hpBar(u, info, x0, top) {
    const inset = CELL * G.hp_bar_inset, width = CELL - 2 * inset;
    const height = Math.max(2, CELL * G.hp_bar_height);
    const fraction = Math.max(0, Math.min(1, u.hp / Math.max(1, info.maxHp)));
    ctx.fillStyle = P.hp_bad;
    ctx.fillRect(x0 + inset, top, width, height);
    if (fraction > 0) {
      ctx.fillStyle = P.hp_good;
      ctx.fillRect(x0 + inset, top, Math.max(1, width * fraction), height);
    }
  }
  function cross(cx, cy, r, width) {
    ctx.strokeStyle = P.wall;
    ctx.lineWidth = width;
    ctx.beginPath();
    ctx.moveTo(cx - r, cy - r); ctx.lineTo(cx + r, cy + r);
    ctx.moveTo(cx - r, cy + r); ctx.lineTo(cx + r, cy - r);
    ctx.stroke();
  }
  function roundRect(x, y, w, h, r) {
    ctx.beginPath();
    ctx.moveTo(x + r, y); ctx.arcTo(x + w, y, x + w, y + h, r); ctx.arcTo(x + w, y + h, x, y + h, r);
    ctx.arcTo(x, y + h, x, y, r); ctx.arcTo(x, y, x + w, y, r); ctx.closePath();
  }
  function drawSelection(e, slot) {
    const u = unitAt(e, slot);
    ctx.strokeStyle = P.selected;
    ctx.lineWidth = 2;
    ctx.setLineDash([4, 3]);
    ctx.strokeRect(u.x * CELL + 0.5, u.y * CELL + 0.5, CELL - 2, CELL - 2);
    ctx.setLineDash([]);
  }
  function draw(e) {
    const snap = D.snapshot[e];
    drawMap(e);
    if (selected >= 0) drawReach(selected, snap);
    drawPaths(e);
    const slots = [];
    for (let s = 0; s < U; s++) slots.push(s);
    const rank = function (s) {                     // the fallen, then mounts, then the rest
      const f = unitAt(e, s).flags;
      return down(f) ? 0 : (f & FLAG.ridden) ? 1 : 2;
    };
    slots.sort(function (a, b) { return rank(a) - rank(b) || a - b; });
    slots.forEach(function (s) { drawUnit(e, s, s === D.owner[e]); });
    if (selected >= 0) { drawThreat(selected, snap); drawSelection(e, selected); }
    drawMarks(e);
  }

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
    tr.innerHTML = "<td><span class='swatch'></span> <b></b></td><td class='name'></td>" +
      "<td class='hp'></td><td class='pos'></td><td class='status'></td>";
    tr.querySelector(".swatch").style.background = TEAMS[info.team % TEAMS.length];
    tr.querySelector("b").textContent = info.initials;
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
  let current = 0, selected = -1, timer = null;
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
    logItems.forEach(function (li) { li.classList.remove("current"); });
    const li = logItems[current];
    li.classList.add("current");
    if (li.offsetTop < log.scrollTop || li.offsetTop > log.scrollTop + log.clientHeight - 20) {
      log.scrollTop = li.offsetTop - log.clientHeight / 2;
    }
    roundSelect.value = D.round[current];
    $("scrub").value = current;
    updateUnits(current);
    updateOrder(current);
    updateSelected(current);
    updateOdds(current);
    draw(current);
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
  canvas.addEventListener("click", function (ev) {
    const rect = canvas.getBoundingClientRect();
    const x = Math.floor((ev.clientX - rect.left) / CELL), y = Math.floor((ev.clientY - rect.top) / CELL);
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

  // ---------------------------------------------------------------- test hooks
  window.fray = {
    data: D,
    cell: CELL,
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
      return {x: rect.left + (x + 0.5) * CELL, y: rect.top + (y + 0.5) * CELL};
    },
  };
  speedText();
  go(fromHash());
  document.body.dataset.ready = "1";
})();
