// The play page of rulecraft serve: draws the frames its socket receives. Every text is put
// in with textContent (never as HTML); nothing here knows any game.
"use strict";
(function () {
  const token = location.pathname.split("/").pop();
  const $ = (id) => document.getElementById(id);
  let ws = null;
  let retry = 500;
  let frames = 0;

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  function send(msg) {
    $("error").textContent = "";
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg));
    else $("error").textContent = "Not connected; reconnecting…";
  }
  const decide = (id) => send({ type: "decide", option: id });

  function button(label, id, cls, detail) {
    const b = el("button", label, cls || "option");
    b.type = "button";
    b.dataset.option = id;
    if (detail) {
      // a card's text or what is on it, under its name (as the terminal prints it)
      b.title = detail;
      b.appendChild(el("span", detail, "detail"));
    }
    b.addEventListener("click", () => decide(id));
    return b;
  }

  function optionList(d, box) {
    const opts = d.options || [];
    const list = el("div", null, "options");
    list.setAttribute("role", "group");
    list.setAttribute("aria-label", d.prompt);
    const many = opts.length > 16;
    function fill(filter) {
      list.replaceChildren();
      let shown = 0;
      const f = (filter || "").toLowerCase();
      for (const o of opts) {
        if (f && !o.label.toLowerCase().includes(f) && !o.id.toLowerCase().includes(f)) continue;
        if (many && shown >= 24) {
          list.appendChild(el("p", "More options match: type in the box above to narrow them.", "muted"));
          break;
        }
        list.appendChild(button(o.label, o.id, null, o.detail));
        shown++;
      }
      if (!shown) list.appendChild(el("p", "No option matches.", "muted"));
    }
    if (many) {
      const search = el("input");
      search.type = "search";
      search.placeholder = `Type to filter the ${opts.length + (d.more || 0)} options`;
      search.setAttribute("aria-label", "filter the options");
      search.addEventListener("input", () => fill(search.value));
      box.appendChild(search);
      if (d.more) box.appendChild(el("p", `The first ${opts.length} are listed here.`, "muted"));
    }
    fill("");
    box.appendChild(list);
  }

  function allocation(d, box) {
    const form = el("form", null, "alloc");
    const total = el("p", "", "muted");
    total.classList.add("points");
    form.appendChild(total);  // first, and kept in sight while the targets scroll by
    const inputs = [];
    const update = () => {
      const sum = inputs.reduce((a, i) => a + (parseInt(i.value, 10) || 0), 0);
      total.textContent = `${sum} of ${d.points} points placed (at most ${d.max_each} on one).`;
      total.className = (sum > d.points ? "error" : "muted") + " points";
    };
    for (const t of d.targets) {
      const row = el("label", null, "alloc-row");
      row.appendChild(el("span", t.label));
      const i = el("input");
      i.type = "number"; i.min = "0"; i.max = String(d.max_each); i.value = "0";
      i.inputMode = "numeric";
      i.dataset.target = t.id;
      i.addEventListener("input", update);
      inputs.push(i);
      row.appendChild(i);
      form.appendChild(row);
    }
    const ok = el("button", "Place these points", "primary");
    ok.type = "submit";
    form.appendChild(ok);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const parts = inputs.filter((i) => (parseInt(i.value, 10) || 0) > 0)
        .map((i) => `${i.dataset.target}=${parseInt(i.value, 10)}`);
      decide("alloc:" + (parts.length ? parts.join(",") : "none"));
    });
    update();
    box.appendChild(form);
  }

  function report(d, box) {
    const form = el("form", null, "report");
    const fact = el("select");
    fact.setAttribute("aria-label", "what changed");
    d.facts.forEach((f, k) => {
      const o = el("option", `${f.label} (now ${f.now})`);
      o.value = String(k);
      fact.appendChild(o);
    });
    const value = el("span");
    let input = null;
    const pick = () => {
      const f = d.facts[parseInt(fact.value, 10)];
      if (f.range) {
        input = el("input");
        input.type = "number"; input.min = String(f.range[0]); input.max = String(f.range[1]);
        input.value = f.now;
      } else {
        input = el("select");
        for (const v of f.values) { const o = el("option", v); o.value = v; input.appendChild(o); }
        input.value = f.now;
      }
      input.setAttribute("aria-label", "its value now");
      value.replaceChildren(el("span", " is now "), input);
    };
    fact.addEventListener("change", pick);
    pick();
    const ok = el("button", "Report this change", "primary");
    ok.type = "submit";
    form.append(fact, value, ok);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      decide(`report:${d.facts[parseInt(fact.value, 10)].where}=${input.value}`);
    });
    box.appendChild(form);
    box.appendChild(button("Done: nothing else changed", "done", "primary"));
  }

  function offer(d, box) {
    box.appendChild(el("p", "Make an offer from the list, write one (good:giver>receiver=amount; several joined by ;), or pass.", "muted"));
    const form = el("form", null, "offer");
    const text = el("input");
    text.placeholder = "e.g. " + ((d.options.find((o) => o.id !== "pass") || {}).id || "offer:good:a>b=1").slice(6);
    text.setAttribute("aria-label", "your offer");
    const ok = el("button", "Offer", "primary");
    ok.type = "submit";
    const pass = el("button", "Pass: make no offer", "option");
    pass.type = "button";
    pass.addEventListener("click", () => decide("pass"));
    form.append(text, ok, pass);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const v = text.value.trim().replace(/\s+/g, "");
      decide(v.startsWith("offer:") ? v : "offer:" + v);
    });
    box.appendChild(form);
    box.appendChild(el("p", "Or pick one of the offers the rules allow:", "muted"));
    optionList(d, box);
  }

  function drawDecision(f) {
    const box = $("dbody");
    box.replaceChildren();
    const d = f.decision;
    const sec = $("decision");
    if (f.result) {
      sec.hidden = false;
      $("dhead").textContent = "Game over";
      const w = f.result.winners.join(", ");
      box.appendChild(el("p", f.result.tie ? `A tie: ${w}.` : `Won by ${w}.`, "result"));
      if (f.result.reason) box.appendChild(el("p", f.result.reason, "muted"));
      return;
    }
    if (!d) {
      $("dhead").textContent = f.seat ? "Nothing to decide now" : "Spectating";
      box.appendChild(el("p", f.waiting.length ? `Waiting for ${f.waiting.join(", ")}.` : "", "muted"));
    } else if (d.answered) {
      $("dhead").textContent = "You have picked";
      box.appendChild(el("p", "Your secret pick is in. Waiting for the others to pick.", "muted"));
    } else {
      $("dhead").textContent = "Your decision";
      box.appendChild(el("p", d.prompt, "prompt"));
      if (d.secret) box.appendChild(el("p", "A secret pick: the others see only that you have picked, until everyone has. You can take it back until then.", "note"));
      if (d.options_kind === "alloc") allocation(d, box);
      else if (d.options_kind === "report") report(d, box);
      else if (d.options_kind === "offer") offer(d, box);
      else optionList(d, box);
      if (d.filter) box.appendChild(el("p", d.filter, "muted"));
      if (d.missing && d.missing.length) {
        const det = el("details");
        det.appendChild(el("summary", `Why ${d.missing.length} of your cards are not offered`));
        const ul = el("ul");
        for (const m of d.missing) ul.appendChild(el("li", m));
        det.appendChild(ul);
        box.appendChild(det);
      }
    }
    if (f.can_undo) {
      const u = el("button", "Take back my last decision", "undo");
      u.type = "button";
      u.addEventListener("click", () => send({ type: "undo" }));
      box.appendChild(u);
    }
  }

  // The map of a hex board: the board (the same for everyone) fetched once and drawn once,
  // the pieces of each frame drawn over it. Flat-topped hexes, the shifted columns half a
  // hex lower, as the rules' board says.
  const SVG = "http://www.w3.org/2000/svg";
  const R = 14;  // a hex's radius in pixels
  const H = Math.sqrt(3) * R;
  const PALETTE = [["sea", "#bcd7ee"], ["water", "#bcd7ee"], ["lake", "#bcd7ee"], ["ocean", "#bcd7ee"],
    ["river", "#9fc3e6"], ["marsh", "#b8c9a8"], ["swamp", "#b8c9a8"], ["forest", "#9cc08a"],
    ["wood", "#9cc08a"], ["mountain", "#b99872"], ["hill", "#d2bd8e"], ["rough", "#d2bd8e"],
    ["desert", "#f0dca0"], ["fort", "#c07a70"], ["city", "#e2a9a0"], ["town", "#e9c0b8"],
    ["clear", "#ece6c4"], ["open", "#ece6c4"], ["plain", "#ece6c4"]];
  const SPARE = ["#d9d2e9", "#cfe2cf", "#f4d6b0", "#d0e0e3", "#ead1dc", "#e6e6b8"];
  let board = null;     // the board's data, once fetched
  let mapAsked = false;
  let lastFrame = null;
  let centred = false;
  const hexAt = new Map();  // record -> [x, y, hex]

  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  function colour(name, k) {
    const n = name.toLowerCase();
    for (const [word, c] of PALETTE) if (n.includes(word)) return c;
    return SPARE[k % SPARE.length];
  }

  function centre(b, c, r) {
    const lower = (c % 2 === 0) === (b.shifted === "even");
    return [R + (c - b.c0) * 1.5 * R + 2, H / 2 + (r - b.r0) * H + (lower ? H / 2 : 0) + 2];
  }

  function drawBoard(b) {
    b.c0 = Math.min(...b.hexes.map((h) => h[1]));
    b.r0 = Math.min(...b.hexes.map((h) => h[2]));
    const c1 = Math.max(...b.hexes.map((h) => h[1]));
    const r1 = Math.max(...b.hexes.map((h) => h[2]));
    const w = 2 * R + (c1 - b.c0) * 1.5 * R + 4;
    const hgt = H * (r1 - b.r0 + 1.5) + 4;
    const root = svg("svg", { viewBox: `0 0 ${w.toFixed(1)} ${hgt.toFixed(1)}`, width: w.toFixed(0),
      height: hgt.toFixed(0), role: "img", "aria-label": "map of the board", class: "board-map" });
    const corners = [0, 1, 2, 3, 4, 5].map((i) => [R * Math.cos(i * Math.PI / 3), R * Math.sin(i * Math.PI / 3)]);
    const cell = svg("polygon", { id: "hexcell", points: corners.map(([x, y]) => `${x.toFixed(2)},${y.toFixed(2)}`).join(" ") });
    const defs = svg("defs", {});
    defs.appendChild(cell);
    root.appendChild(defs);
    const ground = svg("g", { class: "terrain" });
    const names = svg("g", { class: "names" });
    for (const [rec, c, r, t, number, name] of b.hexes) {
      const [x, y] = centre(b, c, r);
      const u = svg("use", { href: "#hexcell", x: x.toFixed(1), y: y.toFixed(1),
        fill: t >= 0 ? colour(b.terrain[t], t) : "#dddddd", "data-hex": number });
      ground.appendChild(u);
      hexAt.set(rec, [x, y, [number, name, t >= 0 ? b.terrain[t] : ""]]);
      if (name) names.appendChild(svg("text", { x: x.toFixed(1), y: (y - R * 0.42).toFixed(1), class: "hexname" }, name));
    }
    root.appendChild(ground);
    const sides = svg("g", { class: "sides" });
    Object.keys(b.sides).forEach((feature, k) => {
      for (const [a, z] of b.sides[feature]) {
        const [ax, ay] = hexAt.get(a), [zx, zy] = hexAt.get(z);
        const mx = (ax + zx) / 2, my = (ay + zy) / 2, dx = (zy - ay) / H * R / 2, dy = -(zx - ax) / H * R / 2;
        const line = svg("line", { x1: (mx - dx).toFixed(1), y1: (my - dy).toFixed(1), x2: (mx + dx).toFixed(1),
          y2: (my + dy).toFixed(1), class: `side side${k % 4}` });
        line.appendChild(svg("title", {}, feature));
        sides.appendChild(line);
      }
    });
    root.appendChild(sides);
    root.appendChild(names);
    root.appendChild(svg("g", { id: "pieces" }));
    root.addEventListener("click", (ev) => {
      const at = ev.target.closest("[data-rec]") || ev.target.closest("[data-hex]");
      if (!at) return;
      const rec = at.dataset.rec !== undefined ? parseInt(at.dataset.rec, 10)
        : b.hexes.find((h) => h[4] === at.dataset.hex)[0];
      describe(rec);
    });
    const legend = el("p", null, "legend");
    b.terrain.forEach((t, k) => {
      const sw = el("span", null, "swatch");
      sw.style.background = colour(t, k);
      const key = el("span", null, "key");
      key.append(sw, el("span", t));
      legend.append(key, " ");
    });
    for (const [cls, what] of [["own", "your forces"], ["other", "others' forces"], ["fog", "forces in the fog"]]) {
      const key = el("span", null, "key");
      key.append(el("span", null, "swatch dot " + cls), el("span", what));
      legend.append(key, " ");
    }
    $("map").replaceChildren(root);
    $("map").after(legend);
  }

  function describe(rec) {
    const at = hexAt.get(rec);
    const here = ((lastFrame && lastFrame.map) || []).find((p) => p[0] === rec);
    let text = at ? `${at[2][0]}${at[2][1] ? " " + at[2][1] : ""}${at[2][2] ? " (" + at[2][2] + ")" : ""}` : "";
    if (!at && board) { const box = board.boxes.find((bx) => bx[0] === rec); text = box ? box[1] : ""; }
    text += here ? ": " + here[1].map((u) => u[0]).join(", ") : ": nothing seen here";
    $("mapinfo").textContent = text;
  }

  function drawPieces(f) {
    const layer = document.getElementById("pieces");
    if (!layer) return;
    const marks = [];
    const off = [];
    for (const [rec, units] of f.map) {
      const at = hexAt.get(rec);
      if (!at) { off.push(`${(board.boxes.find((bx) => bx[0] === rec) || [0, "?"])[1]}: ${units.map((u) => u[0]).join(", ")}`); continue; }
      const kinds = new Set(units.map((u) => u[1]));
      const kind = kinds.has("own") ? "own" : kinds.has("other") ? "other" : "fog";
      const g = svg("g", { class: `piece ${kind}`, "data-rec": rec });
      g.appendChild(svg("title", {}, `${at[2][0]}${at[2][1] ? " " + at[2][1] : ""}: ` + units.map((u) => u[0]).join(", ")));
      // below the middle of the hex: its name (if any) stays readable above
      g.appendChild(svg("circle", { cx: at[0].toFixed(1), cy: (at[1] + R * 0.2).toFixed(1), r: (R * 0.55).toFixed(1) }));
      g.appendChild(svg("text", { x: at[0].toFixed(1), y: (at[1] + R * 0.45).toFixed(1) },
        kind === "fog" && units.length === 1 ? "?" : String(units.length)));
      marks.push(g);
    }
    layer.replaceChildren(...marks);
    $("mapoff").textContent = off.length ? "Off the map: " + off.join("; ") : "";
    if (!centred) {
      centred = true;
      const mine = f.map.filter((p) => hexAt.has(p[0]) && p[1].some((u) => u[1] === "own"));
      const focus = (mine.length ? mine : f.map.filter((p) => hexAt.has(p[0]))).map((p) => hexAt.get(p[0]));
      if (focus.length) {
        const box = $("map");
        const x = focus.reduce((a, p) => a + p[0], 0) / focus.length;
        const y = focus.reduce((a, p) => a + p[1], 0) / focus.length;
        box.scrollLeft = Math.max(0, x - box.clientWidth / 2);
        box.scrollTop = Math.max(0, y - box.clientHeight / 2);
      }
    }
  }

  function drawMap(f) {
    if (!f.map) { $("mapcard").hidden = true; return; }
    $("mapcard").hidden = false;
    if (board) { drawPieces(f); return; }
    if (mapAsked) return;
    mapAsked = true;
    fetch(`/api/${token}/map`).then((r) => r.json()).then((data) => {
      if (!data.map) return;
      board = data.map;
      drawBoard(board);
      if (lastFrame && lastFrame.map) drawPieces(lastFrame);
      document.body.dataset.map = "drawn";
    }).catch(() => { mapAsked = false; });
  }

  // A hot seat (one link, several seats played in turn on one screen): when the seat to
  // decide changes, the screen is hidden until the next player says they have it.
  let shownSeat = null;
  function handover(f) {
    const main = document.querySelector("main");
    main.hidden = true;
    $("status").textContent = "";
    $("status").className = "";
    $("subtitle").textContent = `${f.scenario} · turn ${f.turn} · hot seat: ${f.hot.join(", ")}.`;
    let box = $("handover");
    if (!box) {
      box = el("section", null, "card");
      box.id = "handover";
      document.body.appendChild(box);
    }
    box.hidden = false;
    const ok = el("button", `I play ${f.seat}: show my screen`, "option");
    ok.type = "button";
    ok.id = "handover-ok";
    ok.addEventListener("click", () => {
      box.hidden = true;
      main.hidden = false;
      document.body.dataset.handover = "";
      fetch(`/api/${token}/state`).then((r) => r.json()).then((g) => {
        shownSeat = g.seat;
        draw(g);
      });
    });
    box.replaceChildren(
      el("h2", `Hand the screen to ${f.seat}`),
      el("p", `Hot seat: ${f.hot.join(", ")} take turns at this screen. What ${f.seat} sees stays hidden until they have it.`, "muted"),
      ok,
    );
    document.body.dataset.handover = f.seat;
  }

  function draw(f) {
    lastFrame = f;
    document.body.dataset.frames = String(++frames);  // how many frames drawn (tests wait on it)
    if (f.hot && f.hot.length && shownSeat !== null && f.seat !== shownSeat) {
      handover(f);
      return;
    }
    shownSeat = f.seat;
    const who = f.seat ? `${f.seat}` : "Spectator";
    document.title = `${who} · ${f.title}`;
    $("title").textContent = f.title;
    const named = (k) => `${f.seats[k]}${f.names[k] ? " (" + f.names[k] + ")" : ""}${f.kinds[k] === "bot" ? " (bot)" : ""}`;
    const me = f.seat ? f.seats.indexOf(f.seat) : -1;
    const others = f.seats.map((_s, k) => k).filter((k) => k !== me).map(named);
    $("subtitle").textContent = `${f.scenario} · turn ${f.turn} · ` +
      (me >= 0 ? `You play ${named(me)}; the others: ${others.join(", ")}.` : `Spectating: ${others.join(", ")}.`);
    let status;
    if (f.result) status = "The game is over.";
    else if (f.decision && !f.decision.answered) status = "Your turn to decide.";
    else status = f.waiting.length ? `Waiting for ${f.waiting.join(", ")}.` : "";
    $("status").textContent = status;
    $("status").className = f.decision && !f.decision.answered && !f.result ? "yours" : "";
    drawDecision(f);
    $("board").textContent = f.board;
    drawMap(f);
    const log = $("log");
    if (f.log_from === 0) log.replaceChildren();
    // only the lines the page does not have yet (a hot seat's page fetches the whole log)
    f.log.forEach((line, i) => {
      if (f.log_from + i >= log.children.length) log.appendChild(el("li", line));
    });
    if (f.log.length) log.scrollTop = log.scrollHeight;  // the log's own box, not the page
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(`${proto}//${location.host}/ws/${token}`);
    ws.onopen = () => { retry = 500; };
    ws.onmessage = (ev) => {
      const f = JSON.parse(ev.data);
      if (f.type === "error") {
        $("error").textContent = f.message;
        document.body.dataset.errors = String((parseInt(document.body.dataset.errors || "0", 10)) + 1);
      }
      else if (f.type === "state") draw(f);
    };
    ws.onclose = (ev) => {
      if (ev.code === 4404) { $("status").textContent = "No game has this link."; return; }
      $("status").textContent = "Connection lost; reconnecting…";
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 10000);
    };
  }
  connect();
})();
