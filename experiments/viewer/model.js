/* fray replay viewer, part 1 of 3: the embedded data -> the state at every event index
   (format: experiments/viewer/data.py). No drawing, no DOM. */
"use strict";
/** Decode the page's data ``D`` into per-event lookups. */
function frayModel(D) {
  const FLAG = {};
  D.look.flags.forEach(function (name, i) { FLAG[name] = 1 << i; });
  const W = D.map.width, H = D.map.height, U = D.units.length, E = D.text.length;
  const units = new Int32Array(E * U * 4);          // [x, y, hp, flags] per event, unit
  const row = new Int32Array(U * 4);
  for (let e = 0; e < E; e++) {
    D.unitDelta[e].forEach(function (d) { row.set(d.slice(1, 5), d[0] * 4); });
    units.set(row, e * U * 4);
  }
  const doorsAt = [];                               // per event: {cell: open}
  let doors = {};
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
    const door = D.map.legend[D.map.rows[y][x]].door;  // rules.grid.GLYPHS
    if (door) doors[y * W + x] = door === "open";
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

  return {D: D, FLAG: FLAG, W: W, H: H, U: U, E: E, unitAt: unitAt, status: status,
          down: down, cells: cells, doorsAt: doorsAt, zonesAt: zonesAt, orderAt: orderAt,
          turnStart: turnStart, roundStart: roundStart, oddsEvents: oddsEvents};
}
