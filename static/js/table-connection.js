// The table's connection as the player sees it. While the network is gone or the socket is being
// reopened a notice says so (in the page's language, and aloud: it is an alert), and the table is
// dimmed; when the network comes back or the tab is shown again the socket reopens at once, not at
// the end of a backoff that may have grown to a minute. A move made without a connection is
// refused at once, aloud, and its card put back, rather than queued and sent later against a table
// that has moved on; a move the server does not answer is said to be in doubt, and the socket
// that swallowed it replaced.
(() => {
  "use strict";

  const BACK_SHOWN_MS = 2500;
  /** Every move is answered (the new table, or why not); a socket that stays silent longer after
   * one is dead without knowing it, as on a phone whose network is cut but still "online". */
  const ANSWER_WITHIN_MS = 5000;

  const table = () => document.querySelector(".play");
  /** A table on this device (practice) has no network between it and its game: nothing to say. */
  const local = () => table()?.hasAttribute("data-local") ?? false;
  const banner = () => document.getElementById("connection");
  /** hx-ws's connection for the table: its socket, its reconnect timer, its own reconnect. */
  const connection = () => table()?._htmx?.ws?.connection ?? null;

  /** Whether the banner told of trouble since the table last heard from the server. */
  let troubled = false;
  let quietTimer = null;
  let leaving = false;

  /** Say how the connection stands: "offline", "reconnecting", "back" or "" (all is well). */
  function show(state) {
    const notice = banner();
    if (!notice) return;
    clearTimeout(quietTimer);
    notice.textContent = state ? notice.dataset[state] : "";
    notice.dataset.state = state;
    troubled = state === "offline" || state === "reconnecting";
    table()?.classList.toggle("is-offline", troubled);
    if (state === "back") quietTimer = setTimeout(() => show(""), BACK_SHOWN_MS);
  }

  /** Open a fresh socket now: the old one may be dead without knowing it (a cut network). */
  function reconnectNow() {
    const current = connection();
    if (!current?.visibilityHandler || document.hidden) return;
    clearTimeout(current.timer);
    const stale = current.socket;
    current.socket = null;
    // The extension's own "tab shown again" reconnect: a new socket, the backoff reset. It first
    // drops the stale socket's listeners, so closing it afterwards schedules nothing.
    current.visibilityHandler();
    try {
      stale?.close();
    } catch {
      // Already closed.
    }
  }

  window.addEventListener("offline", () => {
    if (!local()) show("offline");
  });
  window.addEventListener("online", () => {
    if (local()) return;
    show("reconnecting");
    reconnectNow();
  });
  document.addEventListener("visibilitychange", () => {
    const current = connection();
    if (document.hidden || !current) return;
    const state = current.socket?.readyState;
    if (state === WebSocket.CONNECTING) {
      clearTimeout(current.timer); // already reopening: no second socket from an old backoff
    } else if (state !== WebSocket.OPEN) {
      reconnectNow();
    }
  });
  window.addEventListener("pagehide", () => (leaving = true));

  document.addEventListener("htmx:ws:close", () => {
    // A hidden tab's socket is closed on purpose, and reopens when the tab is shown.
    if (leaving || document.hidden || local()) return;
    show(navigator.onLine ? "reconnecting" : "offline");
  });
  /** Put a notice on the table (a fresh element, so it shows and fades anew). */
  function tell(words) {
    const notice = document.getElementById("notice");
    if (!notice) return;
    const fresh = notice.cloneNode(false);
    fresh.textContent = words ?? "";
    notice.replaceWith(fresh);
  }

  let answerTimer = null;
  /** Whether a move went unanswered: said once the table is back, over the table as it stands. */
  let inDoubt = false;
  document.addEventListener("htmx:ws:after:message:outgoing", () => {
    clearTimeout(answerTimer);
    if (local()) return;
    answerTimer = setTimeout(() => {
      inDoubt = true;
      show("reconnecting");
      document.dispatchEvent(new CustomEvent("table:unsent"));
      reconnectNow();
    }, ANSWER_WITHIN_MS);
  });

  document.addEventListener("htmx:ws:after:message:incoming", () => {
    clearTimeout(answerTimer);
    if (troubled) show("back");
    if (inDoubt) tell(banner()?.dataset.unanswered);
    inDoubt = false;
  });

  document.addEventListener("htmx:ws:before:message:outgoing", (event) => {
    const open = event.detail.connection.socket?.readyState === WebSocket.OPEN;
    if (open && (navigator.onLine || local())) return;
    event.detail.cancelled = true;
    if (!troubled) show(navigator.onLine ? "reconnecting" : "offline");
    tell(banner()?.dataset.unsent);
    document.dispatchEvent(new CustomEvent("table:unsent"));
  });
})();
