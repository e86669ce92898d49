// The site-wide socket, one per tab: a person's notices (an invitation, a friend request) on
// whatever page they have open, the count of their matches at own pace waiting for their move, the
// table the pool made for the waiting page, and the counts of who is online where a page shows them.
// It reopens after a lost connection with a growing pause (as the table's does), at once when the
// network or the tab comes back, and never after the server closed it for good (too many frames, a
// ban), whose words it puts at the top of the page.
(() => {
  "use strict";

  const CLOSED_FOR_GOOD = [4029, 4403];
  const MAX_PAUSE_MS = 15000;

  const address = document.querySelector('meta[name="site-socket"]')?.content;
  if (!address || !("WebSocket" in window)) return;

  let socket = null;
  let pause = 1000;
  let timer = null;
  let ended = false;

  function url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}${address}`;
  }

  function open() {
    clearTimeout(timer);
    timer = null;
    if (ended || (socket && socket.readyState <= WebSocket.OPEN)) return;
    socket = new WebSocket(url());
    socket.addEventListener("open", () => { pause = 1000; });
    socket.addEventListener("message", (event) => heard(event.data));
    socket.addEventListener("close", (event) => {
      socket = null;
      if (CLOSED_FOR_GOOD.includes(event.code)) { ended = true; return; }
      timer = setTimeout(open, pause);
      pause = Math.min(MAX_PAUSE_MS, pause * 2);
    });
  }

  function heard(text) {
    let message;
    try { message = JSON.parse(text); } catch { return; }
    if (message.kind === "paired") { location.assign(message.url); return; }
    if (message.kind === "counts") { showCounts(message); return; }
    if (message.kind === "notice") { showNotice(message); return; }
    if (message.kind === "turns") { showTurns(message.count); return; }
    if (message.kind === "closed") {
      // Closed for good (a ban): say why at the top of the page, unless the page has a live socket
      // of its own (a table's, the lobby's), closed for the same reason, which says it.
      if (!document.querySelector("[hx-ws\\:connect]")) {
        document.querySelector(message.target)?.insertAdjacentHTML("afterbegin", message.content);
      }
    }
  }

  function setAll(selector, value) {
    for (const element of document.querySelectorAll(selector)) element.textContent = String(value);
  }

  function showCounts(message) {
    setAll("[data-online-count]", message.online);
    setAll("[data-at-tables-count]", message.at_tables);
    const waiting = document.querySelector("[data-pool]");
    if (waiting) setAll("[data-pool-count]", Math.max(1, message.pools[waiting.dataset.pool] ?? 1));
  }

  function showNotice(message) {
    const toasts = document.getElementById("notice-toasts");
    if (toasts) toasts.insertAdjacentHTML("afterbegin", message.html);
    for (const count of document.querySelectorAll("[data-bell-count]")) {
      count.textContent = message.unread ? String(message.unread) : "";
      count.classList.toggle("is-empty", !message.unread);
    }
  }

  /** The top bar's count of matches at own pace waiting for the person's move. */
  function showTurns(count) {
    for (const badge of document.querySelectorAll("[data-turns-count]")) {
      badge.textContent = count ? String(count) : "";
      badge.classList.toggle("is-empty", !count);
    }
    for (const link of document.querySelectorAll("[data-turns-link]")) link.classList.toggle("is-none", !count);
  }

  document.addEventListener("click", (event) => {
    const dismiss = event.target.closest("[data-dismiss-notice]");
    if (dismiss) dismiss.closest(".site-notice")?.remove();
  });

  // The waiting page's clock: how long this person has been looking.
  const waited = document.querySelector("[data-waited-since]");
  if (waited) {
    const since = Number(waited.dataset.waitedSince) * 1000;
    const tick = () => {
      const seconds = Math.max(0, Math.floor((Date.now() - since) / 1000));
      waited.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    };
    tick();
    setInterval(tick, 1000);
  }

  // "Fill with bots" follows the number of players (on for 3 and 4) until the person sets it.
  const fill = document.querySelector('input[name="fill_with_bots"]');
  if (fill) {
    let touched = false;
    fill.addEventListener("change", () => { touched = true; });
    const follow = () => {
      const players = document.querySelector('input[name="players"]:checked');
      if (!touched && players) fill.checked = Number(players.value) >= 3;
    };
    for (const radio of document.querySelectorAll('input[name="players"]')) radio.addEventListener("change", follow);
    follow();
  }

  window.addEventListener("online", open);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) open(); });
  window.addEventListener("pagehide", () => { ended = true; socket?.close(1000); });
  window.addEventListener("pageshow", (event) => { if (event.persisted) { ended = false; open(); } });
  open();
})();
