// The practice page: a match against bots that runs on this device. The table is the live table's
// own markup and scripts; only the transport differs. Where a live table opens a websocket, this
// page hands htmx a PracticeSocket that talks to a Web Worker running the server's own Python
// (static/js/practice-worker.js). The first visit puts every file the practice needs into the
// device's cache (a progress bar shows the bytes); the match's record (options, seed, moves) is kept
// in localStorage after every move, so a reload, even offline, resumes exactly where it was. The
// records are the person's who played them (static/js/practice-records.js); the page, kept with nobody
// in it, asks the server who is logged in whenever it is online, else trusts the last answer.
(() => {
  "use strict";

  const records = window.practiceRecords;
  const currentKey = () => records.key("current");
  const pastKey = () => records.key("past");
  const frameKey = () => records.key("frame");
  const KEPT = 50;

  const config = JSON.parse(document.getElementById("practice-config").textContent);
  const root = document.getElementById("practice");
  const words = root.dataset;
  const language = document.documentElement.lang || config.languageCode;
  const $ = (id) => document.getElementById(id);

  // --- The transport ----------------------------------------------------------------------------

  let worker = null;
  let socket = null;

  /** What hx-ws takes for a WebSocket: opens at once, and carries frames to and from the worker. */
  class PracticeSocket extends EventTarget {
    static CONNECTING = 0;
    static OPEN = 1;
    static CLOSING = 2;
    static CLOSED = 3;

    constructor(url) {
      super();
      this.url = url;
      this.readyState = PracticeSocket.CONNECTING;
      setTimeout(() => {
        if (this.readyState !== PracticeSocket.CONNECTING) return;
        socket = this;
        this.readyState = PracticeSocket.OPEN;
        this.dispatchEvent(new Event("open"));
        worker.postMessage({ type: "connect" });
      });
    }

    send(data) {
      if (this.readyState !== PracticeSocket.OPEN) throw new Error("The practice table is closed.");
      worker.postMessage({ type: "send", data });
    }

    close(code = 1000) {
      if (this.readyState === PracticeSocket.CLOSED) return;
      this.readyState = PracticeSocket.CLOSED;
      if (socket === this) socket = null;
      this.dispatchEvent(new CloseEvent("close", { code, wasClean: true }));
    }

    receive(html) {
      this.dispatchEvent(new MessageEvent("message", { data: html }));
    }
  }
  // This page opens no other socket: every table connection it makes is the worker.
  window.WebSocket = PracticeSocket;

  // --- Keeping matches on the device ------------------------------------------------------------

  function past() {
    try {
      return JSON.parse(localStorage.getItem(pastKey())) ?? [];
    } catch {
      return [];
    }
  }

  /** The list kept, newest first. A device short of room drops the oldest matches' reviews first: a
   * review can be made again from its record, a record cannot. */
  function keepPast(entries) {
    const kept = entries.slice(0, KEPT);
    for (;;) {
      try {
        localStorage.setItem(pastKey(), JSON.stringify(kept));
        break;
      } catch (error) {
        const oldest = kept.findLast((entry) => entry.review);
        if (!oldest) throw error;
        delete oldest.review;
      }
    }
    showPast();
  }

  /** The entry of a finished match (kept once), newest first. */
  function rememberFinished(record, result) {
    const entries = past();
    const id = `${record.seed}`;
    const known = entries.find((entry) => entry.id === id);
    if (known) {
      known.result = result;
      keepPast(entries);
      return;
    }
    keepPast([{ id, record, result }, ...entries]);
  }

  function showPast() {
    const entries = past();
    const section = $("practice-past");
    const list = section.querySelector("ol");
    list.replaceChildren(
      ...entries.map((entry) => {
        const item = document.createElement("li");
        item.className = "practice-entry";
        const when = new Date(entry.record.finished_at ?? entry.record.started_at);
        const title = document.createElement("span");
        title.textContent = `${when.toLocaleString(language, { dateStyle: "medium", timeStyle: "short" })} · ${entry.result || words.playing}`;
        item.append(title);
        if (entry.kept) {
          const note = document.createElement("p");
          note.className = "muted";
          note.textContent = entry.kept;
          item.append(note);
        } else {
          item.append(listButton(words.open, "open", entry.id));
          if (entry.record.finished_at) item.append(listButton(words.review, "reviewMatch", entry.id));
        }
        if (entry.saved) {
          const link = document.createElement("a");
          link.href = entry.saved;
          link.textContent = words.openSaved;
          item.append(" ", link);
        }
        return item;
      }),
    );
    section.hidden = entries.length === 0;
  }

  function listButton(text, what, id) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "button button-small";
    button.textContent = text;
    button.dataset[what] = id;
    return button;
  }

  // --- Who is here ------------------------------------------------------------------------------

  /** The name the person plays under at the table. */
  const playerName = () => records.person()?.name ?? config.guest;

  /** Ask the server who is logged in (never kept: this page is, with nobody in it): that person's
   * records are the ones shown, anyone else's are removed, and the top bar gets their links. Offline,
   * or with no answer in a few seconds, the person last seen here. */
  async function learnWhoIsHere() {
    try {
      const signal = AbortSignal.timeout(5000);
      const response = await fetch(config.me, { credentials: "same-origin", signal });
      if (!response.ok) return;
      const answer = await response.json();
      records.loggedIn(answer.person);
      const links = document.createElement("template");
      links.innerHTML = answer.account;
      $("practice-account")?.replaceWith(links.content);
      showPast();
    } catch {
      // Offline: the person last seen logged in here, if any.
    }
  }

  const identity = learnWhoIsHere();

  // --- Getting ready: the files on the device, then Python in the worker --------------------------

  function status(text) {
    $("practice-status").textContent = text;
  }

  async function cacheFiles() {
    if (!("caches" in window)) return;
    const cache = await caches.open(config.cache);
    const missing = [];
    for (const file of config.files) {
      if (!(await cache.match(file.url, { ignoreVary: true }))) missing.push(file);
    }
    const total = config.files.reduce((sum, file) => sum + file.bytes, 0);
    let done = total - missing.reduce((sum, file) => sum + file.bytes, 0);
    const progress = $("practice-progress");
    const show = () => {
      progress.max = total;
      progress.value = done;
      status(
        words.preparing
          .replace("%(done)s", (done / 1e6).toFixed(1))
          .replace("%(total)s", (total / 1e6).toFixed(1)),
      );
    };
    show();
    for (const file of missing) {
      const response = await fetch(file.url, { credentials: "same-origin", cache: "no-cache" });
      if (!response.ok) throw new Error(`${file.url}: ${response.status}`);
      // The response itself goes into the cache (scripts and workers need a real one); a copy
      // of its stream counts the bytes as they arrive.
      const stored = cache.put(file.url, response.clone());
      const reader = response.body.getReader();
      for (;;) {
        const { done: finished, value } = await reader.read();
        if (finished) break;
        done += value.length;
        show();
      }
      await stored;
    }
    progress.value = progress.max;
  }

  let ready = false;
  let pending = null;
  /** What the page asked of the worker before Python had started (a review from the list). */
  const afterBoot = [];

  async function prepare() {
    if ("serviceWorker" in navigator) {
      navigator.serviceWorker.register(config.serviceWorker, { scope: config.page }).catch(() => {});
    }
    try {
      await cacheFiles();
    } catch (error) {
      if (!navigator.onLine) {
        status(words.needsVisit);
        return;
      }
      status(`${words.failed} ${error.message}`);
      return;
    }
    status(words.starting);
    worker = await startWorker();
    worker.onmessage = heard;
    // A worker made from a blob resolves nothing against the site: it is given whole addresses.
    const address = (path) => new URL(path, window.location.href).href;
    const [compiled, kept] = await Promise.all([compiledBundle(), keptSnapshot()]);
    worker.postMessage(
      {
        type: "boot",
        language,
        ...kept,
        config: { ...config, pyodide: address(config.pyodide), bundle: address(config.bundle), compiled },
      },
      kept ? [kept.snapshot.buffer, kept.files.buffer] : [],
    );
  }

  // Python's heap once the practice is imported, and the files it had unpacked, kept on the device (in
  // this version's cache, marked with the version that made them): a start from them skips Python's
  // own start, the unpacking and the imports.
  const SNAPSHOT_PARTS = ["snapshot", "files"];
  const snapshotKey = (part) => `${config.page}python-${part}`;
  const SNAPSHOT_VERSION = "x-practice-version";

  async function forgetSnapshot() {
    const cache = await caches.open(config.cache);
    await Promise.all(SNAPSHOT_PARTS.map((part) => cache.delete(snapshotKey(part))));
  }

  /** The snapshot this version made ({snapshot, files}), or null (none yet, or an older version's). */
  async function keptSnapshot() {
    if (!("caches" in window)) return null;
    const cache = await caches.open(config.cache);
    const kept = await Promise.all(SNAPSHOT_PARTS.map((part) => cache.match(snapshotKey(part))));
    if (kept.some((response) => !response || response.headers.get(SNAPSHOT_VERSION) !== config.version)) {
      if (kept.some(Boolean)) await forgetSnapshot();
      return null;
    }
    const [snapshot, files] = await Promise.all(
      kept.map(async (response) => new Uint8Array(await response.arrayBuffer())),
    );
    return { snapshot, files };
  }

  // A browser that makes snapshots it then cannot start from is not asked for another (this version).
  const snapshotRefusedKey = "practice-snapshot-refused";

  async function keepSnapshot(taken) {
    if (!("caches" in window) || localStorage.getItem(snapshotRefusedKey) === config.version) return;
    const headers = { [SNAPSHOT_VERSION]: config.version, "content-type": "application/octet-stream" };
    const cache = await caches.open(config.cache);
    await Promise.all(
      SNAPSHOT_PARTS.map((part) => cache.put(snapshotKey(part), new Response(taken[part], { headers }))),
    );
  }

  /** Where this device keeps the bundle compiled to bytecode (in this version's cache). */
  const compiledKey = () => `${config.page}compiled-${config.bundleVersion}.zip`;

  async function compiledBundle() {
    if (!("caches" in window)) return null;
    const kept = await (await caches.open(config.cache)).match(compiledKey());
    return kept ? await kept.arrayBuffer() : null;
  }

  async function keepCompiled(bytes) {
    if ("caches" in window) await (await caches.open(config.cache)).put(compiledKey(), new Response(bytes));
  }

  /** The worker, from its script as the page fetched it (so from the device's cache when offline:
   * Chromium fetches a worker's own script around the service worker when it emulates no network). */
  async function startWorker() {
    const script = await (await fetch(config.worker)).blob();
    return new Worker(URL.createObjectURL(new Blob([script], { type: "text/javascript" })), { type: "module" });
  }

  // --- Playing -----------------------------------------------------------------------------------

  function showTable(html) {
    const holder = $("practice-table");
    holder.innerHTML = html;
    holder.inert = false;
    holder.removeAttribute("aria-busy");
    $("practice-setup").hidden = true;
    $("practice-bar").hidden = false;
    $("practice-review").hidden = true;
    holder.hidden = false;
    htmx.process(holder);
    document.dispatchEvent(new CustomEvent("table:shown"));
    document.dispatchEvent(new CustomEvent("practice:shown"));
  }

  /** The match on as this page last showed it, drawn at once on a reload while Python starts: seen,
   * not played (inert until the worker sends the table itself). It is the present owner's, kept
   * beside their record (and removed with it), and shown only once the server, or the device
   * offline, has said who is here. */
  function showKeptFrame() {
    const kept = localStorage.getItem(frameKey());
    if (!kept || !localStorage.getItem(currentKey()) || $("practice-table").childElementCount) return;
    const holder = $("practice-table");
    holder.innerHTML = kept;
    holder.inert = true;
    holder.setAttribute("aria-busy", "true");
    $("practice-setup").hidden = true;
    $("practice-bar").hidden = false;
  }

  function keepFrame() {
    const holder = $("practice-table");
    if (holder.inert || !localStorage.getItem(currentKey())) return;
    if (holder.childElementCount && !shownFinished) localStorage.setItem(frameKey(), holder.innerHTML);
    else localStorage.removeItem(frameKey());
  }
  window.addEventListener("pagehide", keepFrame);
  document.addEventListener("visibilitychange", () => document.visibilityState === "hidden" && keepFrame());

  function showSetup() {
    worker.postMessage({ type: "stop" });
    socket?.close();
    localStorage.removeItem(frameKey());
    $("practice-table").replaceChildren();
    $("practice-table").inert = false;
    $("practice-table").hidden = false;
    $("practice-setup").hidden = false;
    $("practice-bar").hidden = true;
    $("practice-review").hidden = true;
  }

  /** The chosen game's options named as the engine names them (americana_players → players). */
  function chosen(form) {
    const game = form.querySelector('input[name="game"]:checked').value;
    const options = {};
    for (const field of form.querySelectorAll(`fieldset[data-game="${game}"] [name]`)) {
      const key = field.name.replace(/^(americana|classic)_/, "");
      if (field.type === "checkbox") options[key] = field.checked;
      else options[key] = /^\d+$/.test(field.value) ? Number(field.value) : field.value;
    }
    const data = new FormData(form);
    const seats = options.players;
    return {
      game,
      options,
      bots: Array.from({ length: seats - 1 }, () => data.get("bot_level")),
      fastBots: data.get("fast_bots") === "on",
    };
  }

  let lastChoice = null;
  function start(choice) {
    lastChoice = choice;
    worker.postMessage({ type: "new", language, player: playerName(), ...choice });
  }

  function resumeOrWait() {
    const current = localStorage.getItem(currentKey());
    if (!current) return;
    worker.postMessage({ type: "open", record: current, language, player: playerName(), id: "current" });
  }

  let shownFinished = false;
  /** The record of the match on show once it is over (what "Save to my history" sends). */
  let finished = null;
  function heard(event) {
    const message = event.data;
    if (message.type === "booted") {
      root.dataset.bootPhases = JSON.stringify(message.phases);
      root.dataset.bootFrom = message.restored ? "snapshot" : "cold";
      if (message.refused) {
        localStorage.setItem(snapshotRefusedKey, config.version);
        forgetSnapshot();
      }
      // Whose match to resume, and whose name to play under, once the server has said who is here.
      identity.then(() => {
        ready = true;
        status(words.ready);
        $("practice-start").disabled = false;
        root.dataset.booted = Math.round(message.ms);
        afterBoot.splice(0).forEach((ask) => ask());
        if (pending) pending();
        else resumeOrWait();
      });
    } else if (message.type === "page") {
      shownFinished = message.finished;
      finished = null;
      showTable(message.html);
    } else if (message.type === "frame") {
      socket?.receive(message.html);
    } else if (message.type === "record") {
      const record = JSON.parse(message.record);
      if (message.finished) {
        localStorage.removeItem(currentKey());
        localStorage.removeItem(frameKey());
        rememberFinished(record, message.result);
        finished = record;
        offerSave();
      } else {
        localStorage.setItem(currentKey(), message.record);
      }
    } else if (message.type === "unreplayable") {
      keepUnreplayable(message.id);
    } else if (message.type === "compiled") {
      keepCompiled(message.bytes);
    } else if (message.type === "snapshot") {
      keepSnapshot(message).then(() => (root.dataset.snapshotKept = config.version));
    } else if (message.type === "review-progress") {
      reviewProgress(message);
    } else if (message.type === "reviewed") {
      reviewed(message);
    } else if (message.type === "review-failed") {
      if (reviewOnShow() === message.id) reviewStatus(`${words.reviewFailed} ${message.error}`);
    } else if (message.type === "decision") {
      (window.practiceDecisions ??= []).push({ level: message.level, ms: message.ms });
    } else if (message.type === "error") {
      status(`${words.failed} ${message.error}`);
    }
  }

  /** A record this version can no longer replay: kept in the list as it ended, and said so. */
  function keepUnreplayable(id) {
    if (id === "current") {
      const record = JSON.parse(localStorage.getItem(currentKey()));
      localStorage.removeItem(currentKey());
      keepPast([{ id: `${record.seed}`, record, result: "", kept: words.kept }, ...past()]);
      if ($("practice-table").inert) showSetup();
      status(words.kept);
      return;
    }
    const entries = past();
    const entry = entries.find((candidate) => candidate.id === id);
    if (entry) entry.kept = words.kept;
    keepPast(entries);
  }

  // --- Saving a finished match to the player's history ---------------------------------------------

  function offerSave() {
    const button = document.querySelector('[data-practice="save"]');
    const record = finished;
    if (!button || !record) return;
    const entry = past().find((candidate) => candidate.id === `${record.seed}`);
    button.hidden = !records.person() || Boolean(entry?.saved);
    button.dataset.seed = `${record.seed}`;
    if (entry?.saved) said(words.saved, entry.saved);
  }

  function said(text, link) {
    const line = document.querySelector(".practice-saved");
    if (!line) return;
    line.textContent = text;
    if (link) {
      const anchor = document.createElement("a");
      anchor.href = link;
      anchor.textContent = words.openSaved;
      line.append(" ", anchor);
    }
  }

  function csrfToken() {
    return document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/)?.[1] ?? "";
  }

  async function save(button) {
    const entries = past();
    const entry = entries.find((candidate) => candidate.id === button.dataset.seed);
    if (!entry) return;
    if (!navigator.onLine) {
      said(words.offlineSave);
      return;
    }
    button.disabled = true;
    said(words.saving);
    try {
      const response = await fetch(config.save, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify(entry.record),
        credentials: "same-origin",
      });
      const answer = await response.json();
      if (!response.ok) throw new Error(answer.error ?? response.status);
      entry.saved = answer.url;
      keepPast(entries);
      button.hidden = true;
      said(words.saved, answer.url);
    } catch (error) {
      said(`${words.saveFailed} ${error.message}`);
    } finally {
      button.disabled = false;
    }
  }

  // --- Reviewing a finished match ------------------------------------------------------------------
  // The worker judges the person's decisions one at a time (the table plays on between them) and
  // sends the review's markup; the device keeps the review with the match's entry, so it is made once.

  /** The id of the match whose review is on show, or "" when none is. */
  const reviewOnShow = () => ($("practice-review").hidden ? "" : $("practice-review").dataset.id);

  function reviewStatus(text) {
    $("practice-review-status").textContent = text;
  }

  /** Show the review of the kept match ``id`` in place of the table: the kept one, or one made now. */
  function showReview(id) {
    const entry = past().find((candidate) => candidate.id === id);
    if (!entry) return;
    const panel = $("practice-review");
    panel.dataset.id = id;
    panel.hidden = false;
    $("practice-table").hidden = true;
    $("practice-setup").hidden = true;
    $("practice-bar").hidden = true;
    $("practice-review-body").replaceChildren();
    $("practice-review-progress").hidden = false;
    reviewStatus("");
    const ask = entry.review
      ? { type: "show-review", id, review: JSON.stringify(entry.review), language }
      : { type: "review", id, record: JSON.stringify(entry.record), language };
    if (ready) worker.postMessage(ask);
    else {
      reviewStatus(words.starting);
      afterBoot.push(() => worker.postMessage(ask));
    }
    panel.scrollIntoView({ block: "start" });
    panel.querySelector('[data-practice="close-review"]').focus({ preventScroll: true });
  }

  function closeReview() {
    $("practice-review").hidden = true;
    if ($("practice-table").childElementCount) {
      $("practice-table").hidden = false;
      $("practice-bar").hidden = false;
    } else {
      $("practice-setup").hidden = false;
    }
  }

  function reviewProgress(message) {
    if (reviewOnShow() !== message.id) return;
    const progress = $("practice-review-progress").querySelector("progress");
    progress.max = Math.max(1, message.total);
    progress.value = message.done;
    reviewStatus(words.reviewing.replace("%(done)s", message.done).replace("%(total)s", message.total));
  }

  function reviewed(message) {
    const entries = past();
    const entry = entries.find((candidate) => candidate.id === message.id);
    if (!message.html) {
      // Kept from another version's way of judging: made again.
      if (entry) delete entry.review;
      keepPast(entries);
      if (reviewOnShow() === message.id) showReview(message.id);
      return;
    }
    if (entry && !entry.review) {
      entry.review = JSON.parse(message.review);
      keepPast(entries);
    }
    if (reviewOnShow() !== message.id) return;
    $("practice-review-progress").hidden = true;
    $("practice-review-body").innerHTML = message.html;
  }

  // --- The page's controls -------------------------------------------------------------------------

  document.addEventListener("click", (event) => {
    const control = event.target.closest("[data-practice], [data-open], [data-review-match]");
    if (!control) return;
    if (control.dataset.reviewMatch) {
      showReview(control.dataset.reviewMatch);
    } else if (control.dataset.practice === "review") {
      if (finished) showReview(`${finished.seed}`);
    } else if (control.dataset.practice === "close-review") {
      closeReview();
    } else if (control.dataset.open) {
      const entry = past().find((candidate) => candidate.id === control.dataset.open);
      if (entry) {
        const record = JSON.stringify(entry.record);
        worker.postMessage({ type: "open", record, language, player: playerName(), id: entry.id });
      }
    } else if (control.dataset.practice === "again") {
      if (lastChoice) start(lastChoice);
      else showSetup();
    } else if (control.dataset.practice === "save") {
      save(control);
    } else if (control.dataset.practice === "leave") {
      if (shownFinished || !localStorage.getItem(currentKey()) || window.confirm(words.leave)) {
        localStorage.removeItem(currentKey());
        showSetup();
      }
    }
  });

  // A finished match's sheet offers saving once it is on show (its frame may land after its record).
  document.addEventListener("htmx:ws:after:message:incoming", () => {
    shownFinished = Boolean(document.querySelector('[data-testid="match-over"]'));
    offerSave();
  });

  document.addEventListener("DOMContentLoaded", () => {
    const form = $("practice-form");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const choice = chosen(form);
      if (ready) start(choice);
      else pending = () => start(choice);
    });
    showPast();
    identity.then(showKeptFrame);
    prepare();
  });
})();
