/* fray replay viewer, part 2 of 3: the map canvas, in the look of env/render.py (the
   palette and sizes come from the data, injected from env.render). */
"use strict";
/** Draw the battle of model ``M`` on ``canvas``; returns {cell, draw(e, selected), resize(cell)}. */
function frayMap(canvas, M) {
  const D = M.D, P = D.look.palette, G = D.look.geometry, TEAMS = D.look.teams;
  const FLAG = M.FLAG, W = M.W, H = M.H, U = M.U, unitAt = M.unitAt, cells = M.cells;
  const down = M.down, doorsAt = M.doorsAt, zonesAt = M.zonesAt, turnStart = M.turnStart;
  const ctx = canvas.getContext("2d");
  let CELL = 0;
  /** Squares of ``cell`` CSS pixels (whole, 10 to 48); the page fits it to the window. */
  function resize(cell) {
    CELL = Math.max(10, Math.min(48, Math.floor(cell)));
    const ratio = window.devicePixelRatio || 1;
    canvas.width = W * CELL * ratio;
    canvas.height = H * CELL * ratio;
    canvas.style.width = W * CELL + "px";
    canvas.style.height = H * CELL + "px";
    canvas.dataset.cell = CELL;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  }
  resize(Math.min(900 / W, 820 / H));

  const LEGEND = D.map.legend;                     // rules.grid.GLYPHS, by glyph
  function terrain(cell, doorState) {
    const glyph = LEGEND[D.map.rows[Math.floor(cell / W)][cell % W]];
    if (glyph.wall) return P.wall;
    if (cell in doorState) return doorState[cell] ? P.door_open : P.door_closed;
    if (glyph.drop !== null) return P.drop;
    if (glyph.dark) return P.dark;
    if (glyph.difficult) return P.difficult;
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
      const cell = y * W + x, glyph = LEGEND[D.map.rows[y][x]];
      let colour = terrain(cell, doorState);
      if (lit[cell]) colour = glyph.difficult ? P.difficult : P.floor;  // a torch lights it
      ctx.fillStyle = colour;
      ctx.fillRect(x * CELL, y * CELL, CELL, CELL);
      if (colour !== P.wall) {
        ctx.fillStyle = P.gridline;
        ctx.fillRect(x * CELL, (y + 1) * CELL - 1, CELL, 1);
        ctx.fillRect((x + 1) * CELL - 1, y * CELL, 1, CELL);
      }
      if (glyph.dark && glyph.difficult && !lit[cell]) {  // dark and difficult: hatch
        ctx.fillStyle = P.difficult;
        ctx.fillRect(x * CELL + CELL * 0.3, y * CELL + CELL * 0.3, CELL * 0.4, CELL * 0.4);
      }
      if (colour === P.drop) {                      // a drop: its depth in feet
        ctx.fillStyle = P.floor;
        const depth = glyph.drop;
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
  function draw(e, selected) {
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

  return {get cell() { return CELL; }, draw: draw, resize: resize};
}
