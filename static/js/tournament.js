// A tournament's page: its live part (standing, round, podium) as the server pushes it, rendered
// once for every viewer, with this person's own row marked and their place copied into their box;
// the table they are seated at opens by itself; countdowns tick. The socket only listens. It
// reopens after a lost connection with a growing pause (as the site socket does), at once when the
// network or the tab comes back, and never after the server closed it for good.
(() => {
  "use strict";

  const CLOSED_FOR_GOOD = [4029, 4403];
  const MAX_PAUSE_MS = 15000;

  const address = document.querySelector('meta[name="tournament-socket"]')?.content;

  /** The viewer's own rows (standing, podium) marked, and their place in the standing (the row's
   * data-rank, else its first cell) copied into their box. */
  function markMe() {
    const live = document.getElementById("tournament-live");
    const me = live?.dataset.me;
    if (!me) return;
    const mine = live.querySelectorAll(`[data-user="${CSS.escape(me)}"]`);
    for (const element of mine) element.classList.add("is-me");
    const row = [...mine].find((element) => element.matches("tr"));
    const place = row && (row.dataset.rank ?? row.cells[0]?.textContent.trim());
    if (!place) return;
    for (const element of document.querySelectorAll("[data-my-place]")) element.textContent = place;
  }

  function clock(seconds) {
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    const rest = String(seconds % 60).padStart(2, "0");
    return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
  }

  function tickCountdowns() {
    const now = Date.now() / 1000;
    for (const element of document.querySelectorAll("[data-countdown-to]")) {
      const left = clock(Math.max(0, Math.floor(Number(element.dataset.countdownTo) - now)));
      element.textContent = (element.dataset.countdownWords || "{time}").replace("{time}", left);
    }
  }

  function heard(text) {
    let message;
    try { message = JSON.parse(text); } catch { return; }
    if (message.kind === "go") { location.assign(message.url); return; }
    if (message.kind === "live") {
      const live = document.getElementById("tournament-live");
      if (!live) return;
      // The tournament started, ended or was cancelled: the player's own box (buttons, place) changes
      // with it, so the whole page is drawn anew.
      const before = live.querySelector("[data-status]")?.dataset.status;
      const after = new DOMParser().parseFromString(message.html, "text/html").querySelector("[data-status]")?.dataset.status;
      if (before && after && before !== after) { location.reload(); return; }
      live.innerHTML = message.html;
      markMe();
      tickCountdowns();
      return;
    }
    // Closed for good (a ban): the words at the top of the page, unless the site socket said them.
    if (message.content && message.target && !document.querySelector('[data-testid="socket-closed"]')) {
      document.querySelector(message.target)?.insertAdjacentHTML("afterbegin", message.content);
    }
  }

  let socket = null;
  let pause = 1000;
  let timer = null;
  let ended = false;

  function open() {
    clearTimeout(timer);
    timer = null;
    if (ended || (socket && socket.readyState <= WebSocket.OPEN)) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${scheme}//${location.host}${address}`);
    socket.addEventListener("open", () => { pause = 1000; });
    socket.addEventListener("message", (event) => heard(event.data));
    socket.addEventListener("close", (event) => {
      socket = null;
      if (CLOSED_FOR_GOOD.includes(event.code)) { ended = true; return; }
      timer = setTimeout(open, pause);
      pause = Math.min(MAX_PAUSE_MS, pause * 2);
    });
  }

  markMe();
  tickCountdowns();
  setInterval(tickCountdowns, 1000);

  if (!address || !("WebSocket" in window)) return;
  window.addEventListener("online", open);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) open(); });
  window.addEventListener("pagehide", () => { ended = true; socket?.close(1000); });
  window.addEventListener("pageshow", (event) => { if (event.persisted) { ended = false; open(); } });
  open();
})();
